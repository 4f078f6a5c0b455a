// A small element builder: properties and children, text only (never HTML).

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> & Record<string, unknown> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const e = Object.assign(document.createElement(tag), props) as HTMLElementTagNameMap[K];
  e.append(...children);
  return e;
}

/** The element `sel` below `root`; throws if the page lacks it. */
export function $<T extends HTMLElement>(sel: string, root: ParentNode = document): T {
  const e = root.querySelector<T>(sel);
  if (!e) throw new Error(`the page has no ${sel}`);
  return e;
}

/** Sets an element's text only when it changed (no needless layout). */
export function setText(e: Element, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}
