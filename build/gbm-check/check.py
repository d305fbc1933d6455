#!/usr/bin/env python3
"""Reference run for engines/ml's GBM check (TestGBMAgainstScikitLearn).

Reads a CSV written by the Go test (header x0..x{F-1},y,fold; one row per
sample) and a JSON file of hyper-parameters, trains scikit-learn's
HistGradientBoostingRegressor on each fold's complement with the same
hyper-parameters, predicts the held-out fold, and writes JSON:
{"sklearn_version": ..., "oof": [...one prediction per row...]}.

Usage: check.py DATA.csv PARAMS.json OUT.json
"""
import json
import sys

import numpy as np
import sklearn
from sklearn.ensemble import HistGradientBoostingRegressor


def main(data_path, params_path, out_path):
    with open(params_path) as f:
        p = json.load(f)
    data = np.loadtxt(data_path, delimiter=",", skiprows=1)
    X, y, fold = data[:, :-2], data[:, -2], data[:, -1].astype(int)
    oof = np.empty_like(y)
    for k in range(fold.max() + 1):
        test = fold == k
        model = HistGradientBoostingRegressor(
            loss="squared_error",
            learning_rate=p["learning_rate"],
            max_iter=p["iterations"],
            max_leaf_nodes=p["max_leaf_nodes"],
            max_depth=p["max_depth"] or None,
            min_samples_leaf=p["min_samples_leaf"],
            l2_regularization=p["l2_regularization"],
            max_bins=p["max_bins"],
            early_stopping=False,
            random_state=0,
        )
        model.fit(X[~test], y[~test])
        oof[test] = model.predict(X[test])
    with open(out_path, "w") as f:
        json.dump({"sklearn_version": sklearn.__version__, "oof": oof.tolist()}, f)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
