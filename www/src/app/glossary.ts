// The glossary, DOM-free: the terms the page uses, each in two or three plain sentences, and
// which term explains which option or statistic of the core (by key; an option without a
// term keeps its schema help). The view (glossaryView.ts) shows it in a dialog; any element with
// `data-term="ID"` opens it at that term.

export interface Term {
  id: string;
  term: string;
  text: string;
}

export const GLOSSARY: Term[] = [
  {
    id: 'rbm',
    term: 'Restricted Boltzmann Machine (RBM)',
    text: 'A probability model of binary patterns v with binary hidden units h: p(v, h) ∝ exp(vᵀWh + bᵀv + cᵀh). No unit is connected to another of its own layer, so each layer is easy to sample given the other.',
  },
  {
    id: 'atll',
    term: 'Average log-likelihood (ATLL)',
    text: '(1/N) Σ log p(v) over the N training patterns: how probable the model finds the data, in nats per pattern. Higher is better. Here it is exact, because log Z is summed over every state of the smaller layer.',
  },
  {
    id: 'bound',
    term: 'The bound (minus the entropy of the data)',
    text: 'The highest average log-likelihood any model can reach on this data: it is reached when the model gives each distinct training pattern exactly its frequency. The dashed line on the chart.',
  },
  {
    id: 'kl',
    term: 'KL divergence',
    text: 'KL(data ‖ model) = bound − average log-likelihood, in nats: how far the model’s distribution is from the data’s. It is 0 only for a perfect model; the gap between a curve and the dashed line is this KL.',
  },
  {
    id: 'log-z',
    term: 'log Z (partition function)',
    text: 'The logarithm of the sum that normalises the model’s probabilities. Summing over 2¹⁶ hidden states is instant; over 2⁵⁰⁰ it is impossible, which is why MNIST-size models need an estimate (AIS).',
  },
  {
    id: 'gibbs-sweep',
    term: 'Gibbs sweep',
    text: 'One step of a sampling chain: draw every hidden unit given the visible ones, then every visible unit given the hidden ones. Sweeps measure sampling work; the x axis can count them (equal compute).',
  },
  {
    id: 'update',
    term: 'Update',
    text: 'One change of the parameters W, b and c in the direction of the algorithm’s estimate of the gradient, scaled by the learning rate η.',
  },
  {
    id: 'lr',
    term: 'Learning rate η',
    text: 'How far each update moves the parameters. Too large and a sampling-based estimate’s errors are amplified: the log-likelihood can fall or explode.',
  },
  {
    id: 'phases',
    term: 'Positive and negative phase',
    text: 'The gradient of the log-likelihood is a difference of two averages of vᵢhⱼ: over the data (positive phase, exact and cheap) and over the model (negative phase, which needs samples). The algorithms differ only in how they get the negative samples.',
  },
  {
    id: 'chains',
    term: 'Chains',
    text: 'Independent sampling runs that provide the negative phase’s samples. More chains give a less noisy estimate for more work.',
  },
  {
    id: 'cd',
    term: 'CD-k (contrastive divergence)',
    text: 'Starts its chains at the training data at every update and runs k Gibbs sweeps. Cheap, but biased: the chains have not reached the model’s distribution, and with k = 1 the likelihood can rise, then fall.',
  },
  {
    id: 'pcd',
    term: 'PCD (persistent CD)',
    text: 'Keeps its chains running from one update to the next instead of restarting them at the data, so they follow the model. It works while the learning rate is small enough for the chains to keep up.',
  },
  {
    id: 'ucd',
    term: 'UCD (unbiased CD)',
    text: 'Runs two coupled chains until they meet; their difference corrects CD’s bias, so the estimate averages to the exact gradient. The number of steps until they meet is τ.',
  },
  {
    id: 'tau',
    term: 'τ (stopping time)',
    text: 'UCD’s number of steps until its two coupled chains meet. A long τ means the model has become hard to sample; it jumps where CD starts to fail.',
  },
  {
    id: 'filter',
    term: 'Weight filter',
    text: 'The weights of one hidden unit to every visible unit, drawn as an image: the pattern that unit responds to. Blue negative, red positive.',
  },
  {
    id: 'epoch',
    term: 'Epoch',
    text: 'One pass over all the training rows. With the whole data set in each update (full batch) an epoch is one update.',
  },
  {
    id: 'ais',
    term: 'AIS and RAISE',
    text: 'Annealed importance sampling estimates log Z by moving particles from a simple model to the RBM; it brackets the log-likelihood from above, and its reverse, RAISE, from below.',
  },
  {
    id: 'mf-cd',
    term: 'MF-CD (mean-field CD)',
    text: 'CD-1 with probabilities in place of samples (Welling & Hinton 2002): the negative phase uses the chain’s expected values, not drawn states. Less noisy than CD-1, and more biased; the PCD paper compares it.',
  },
  {
    id: 'fpcd',
    term: 'FPCD (fast persistent CD)',
    text: 'PCD whose chains run under the parameters plus a set of fast weights that learn quickly and decay (by 0.95 per update here; Tieleman & Hinton 2009). The fast weights push the chains away from where they are, so they mix faster. With fast rate 0 it is PCD exactly.',
  },
  {
    id: 'pt',
    term: 'PT (parallel tempering)',
    text: 'PCD whose every chain has R replicas at inverse temperatures from β = 1 down to β_min (evenly spaced here, our choice; Desjardins et al. 2010). Each runs its Gibbs sweeps under β·θ, then neighbours swap states with the Metropolis probability, so the hot, fast-mixing replicas feed new modes down to β = 1, whose chains give the negative phase. Its statistics are each pair’s swap acceptance.',
  },
  {
    id: 'sdcp',
    term: 'S-DCP (stochastic difference of convex programming)',
    text: 'Upadhya & Sastry 2017: per mini-batch, the positive phase once, then d inner steps, each of K′ Gibbs sweeps and a small update, starting from the data. d·K′ sweeps per update, like CD-(d·K′); with d = 1 it is CD-K′ exactly.',
  },
  {
    id: 'cg',
    term: 'CG (centered gradient)',
    text: 'Melchior, Fischer & Wiskott 2016: the same sampling as CD, but the units are centred by running averages of the visible (μ) and hidden (λ) means, which makes the gradient better conditioned. The parameters are stored in plain form for evaluation.',
  },
  {
    id: 'cs-dcp',
    term: 'CS-DCP (centered S-DCP)',
    text: 'S-DCP with the centering of CG (Upadhya & Sastry 2017, Algorithm 4). The S-DCP paper reports it converging fastest at the small learning rate.',
  },
  {
    id: 'trial',
    term: 'Trial',
    text: 'One complete training run of a lane from its own seed. A study runs each lane as many trials, seeded as `rbm reproduce` seeds them, because one run can be lucky or unlucky; the papers report medians over trials.',
  },
  {
    id: 'median-bands',
    term: 'Median and bands',
    text: 'Across a lane’s trials at each checkpoint: the median (the thick line: half the trials above, half below), the q10–q90 band (80% of the trials inside it) and, when asked, q2.5–q97.5 (95%). Thin lines are a few single trials.',
  },
  {
    id: 'isl',
    term: 'ISL (indirect sampling likelihood)',
    text: 'Breuleux, Bengio & Vincent 2010: fit a Parzen density (one kernel per sample) on the first N samples a sampler drew and report the mean log-density of held-out test digits. It rises as the samples cover more of the data; a sampler stuck near one digit rises slowly.',
  },
  {
    id: 'tv',
    term: 'Total variation',
    text: 'The distance between two distributions over patterns: half the sum of the absolute differences of their probabilities, from 0 (the same) to 1 (disjoint). The chain panel plots it between the chain’s law after k sweeps and the model (or the data).',
  },
  {
    id: 'rates-fpcd',
    term: 'Rates-FPCD and rates-herding',
    text: 'Samplers for a trained model (Breuleux, Bengio & Vincent 2011): fast weights learn the difference between the data’s statistics (the rates) and the chain’s latest sample, pushing the chain to digits it has not visited yet. Rates-FPCD samples; rates-herding steps deterministically to a fixed point. Sample penalisation keeps only the push away from the last samples.',
  },
];

/** The term that explains an option or a statistic of the core, by its key. */
export const TERM_OF_KEY: Record<string, string> = {
  lr: 'lr',
  k: 'gibbs-sweep',
  chains: 'chains',
  every: 'atll',
  exact_bits: 'log-z',
  mean_tau: 'tau',
  max_tau: 'tau',
  hidden: 'rbm',
};

export function glossaryTerm(id: string): Term | undefined {
  return GLOSSARY.find((t) => t.id === id);
}
