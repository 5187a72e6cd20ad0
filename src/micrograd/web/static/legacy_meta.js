/* TEMPORARY: the set-up's description as the catalogue will send it (meta.experiment),
 * made from today's catalogue until it does. */
export function experimentOf(m) {
  const d = m.play_defaults;
  const f = (name, url, kind, label, group, extra = {}) => ({
    name, url, kind, label, group, default: d[name], help: extra.help || "",
    keeps_weights: Boolean(extra.keeps), ...extra });
  const titles = { moons: "two moons", xor: "XOR", plane: "plane (regression)",
                   gaussians: "gaussians (regression)" };
  return {
    fields: [
      f("dataset", "ds", "choice", "data set", "data", { choices: m.datasets, choice_labels: titles }),
      f("classes", "k", "int", "classes", "data", { min: 2, max: 5,
        help: "3 or more: spiral or blobs, trained with the softmax cross-entropy (ce)" }),
      f("noise", "noise", "number", "noise", "data", { min: 0, keeps: true }),
      f("samples", "n", "int", "samples", "data", { min: 10 }),
      f("train_ratio", "ratio", "number", "train ratio", "data", { min: 0.1, max: 0.9, keeps: true }),
      f("seed", "seed", "int", "data seed", "data", { min: 0 }),
      f("added", "add", "points", "added points", "data", { keeps: true }),
      f("removed", "rm", "indices", "removed points", "data", { keeps: true }),
      f("features", "feat", "choices", "input features", "features", { choices: m.features }),
      f("hidden", "hidden", "ints", "sizes", "network", { max_len: m.play_limits.max_layers,
        help: "neurons per hidden layer, comma separated, e.g. 4,2 (up to 6 layers; type more than 8 neurons here)" }),
      f("init_seed", "iseed", "int", "init seed", "network", { min: 0 }),
      f("activation", "act", "choice", "activation", "act", { choices: m.activations }),
      f("loss", "loss", "choice", "loss", "loss", { choices: m.losses }),
      f("optimizer", "opt", "choice", "optimizer", "opt", { choices: m.optimizers, keeps: true }),
      f("lr", "lr", "number", "learning rate", "lr", { min: 0, keeps: true }),
      f("batch_size", "batch", "int", "batch (0 = all)", "data", { min: 0, keeps: true }),
      f("l1", "l1", "number", "L1 rate", "reg", { min: 0, keeps: true }),
      f("l2", "l2", "number", "L2 rate", "reg", { min: 0, keeps: true }),
    ],
    regression: m.regression, multiclass: ["spiral", "blobs"],
    losses: { mse: { labels: "pm1", outputs: "one", output_activation: "tanh" },
              hinge: { labels: "pm1", outputs: "one", output_activation: "linear" },
              bce: { labels: "01", outputs: "one", output_activation: "linear" },
              ce: { labels: "index", outputs: "classes", output_activation: "linear" } },
  };
}

