// The Share dialog's links, DOM-free: the page's experiment with the parts a teacher hides, as a
// link (full layout, or compact with `embed=1`) and as an `<iframe>` snippet of the compact one.

import type { Catalog } from '../generated/core';
import { iframeSnippet, pageBase, type ViewFlags } from './classroom';
import type { PageState } from './state';
import { encodeState } from './urlState';

export interface ShareChoice {
  /** The parts students do not see. */
  hide: string[];
  /** The link opens in the compact layout (the iframe always does). */
  embed: boolean;
  /** A guided tour the link opens, or null. */
  tour: string | null;
  /** Whether the link keeps the page's trials per lane (Start runs a study); false: one live
   * run per lane, what a class sees move at once (absent: kept). */
  study?: boolean;
}

export interface ShareLinks {
  link: string;
  embedLink: string;
  iframe: string;
}

/** The links of `state` with `choice`, on the page at `href` (its hash is replaced). */
export function shareLinks(catalog: Catalog, state: PageState, choice: ShareChoice, href: string, title: string): ShareLinks {
  const base = pageBase(href);
  if (choice.study === false) state = { ...state, trials: null };
  // Nothing hidden in the full layout needs no `hide=`; the compact one always lists its parts.
  const url = (view: ViewFlags) => `${base}#${encodeState(catalog, state, { ...view, hide: view.hide?.length || view.embed ? view.hide : null })}`;
  const embedLink = url({ hide: choice.hide, embed: true, tour: choice.tour });
  return {
    link: url({ hide: choice.hide, embed: choice.embed, tour: choice.tour }),
    embedLink,
    iframe: iframeSnippet(embedLink, title),
  };
}
