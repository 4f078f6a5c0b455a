// The lane panels, in the order a lane card shows them. A new panel: one file, one line here.
import { aisPanel } from './ais';
import { chainsPanel } from './chains';
import { chainTimePanel } from './chainTime';
import { distributionPanel } from './distribution';
import { downloadPanel } from './download';
import { exactPanel } from './exact';
import { filtersPanel } from './filters';
import { gradErrorPanel } from './gradError';
import { mixingPanel } from './mixing';
import { optionsPanel } from './options';
import type { PanelKind } from './panel';
import { reconstructionsPanel } from './reconstructions';
import { slowMotionPanel } from './slowmo';
import { statisticsPanel } from './statistics';
import { tauHistogramPanel } from './tauHistogram';
import { tauHistoryPanel } from './tauHistory';
import { weightNormsPanel } from './weightNorms';

export const PANELS: PanelKind[] = [
  exactPanel,
  optionsPanel,
  statisticsPanel,
  tauHistogramPanel,
  tauHistoryPanel,
  filtersPanel,
  weightNormsPanel,
  distributionPanel,
  chainsPanel,
  reconstructionsPanel,
  slowMotionPanel,
  aisPanel,
  chainTimePanel,
  gradErrorPanel,
  mixingPanel,
  downloadPanel,
];
