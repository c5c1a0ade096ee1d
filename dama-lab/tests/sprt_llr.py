#!/usr/bin/env python3
"""Reference values for the unit tests of dama-search/src/sprt.rs, by another method.

The Rust code computes the log-likelihood ratio of the pentanomial GSPRT through the dual
of the constrained maximum-likelihood problem (a one-dimensional search for a Lagrange
multiplier). This script maximizes the likelihood itself, directly over the probabilities of
the five pair scores, with a generic Nelder-Mead search (standard library only): three
probabilities are free, the other two follow from "they sum to 1" and "their mean is the
score of the hypothesis", and a point with a negative probability is rejected.

    python3 dama-lab/tests/sprt_llr.py
"""
import math

SCORES = [0.0, 0.25, 0.5, 0.75, 1.0]


def score_of_elo(elo):
    """The expected score of a player `elo` logistic Elo points stronger."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def log_likelihood(counts, free, s):
    """sum n_k ln p_k for p_1, p_2, p_3 = free, p_0 and p_4 solved from the constraints;
    None where a probability is negative (or zero under an observed count)."""
    p1, p2, p3 = free
    p4 = s - (0.25 * p1 + 0.5 * p2 + 0.75 * p3)
    p0 = 1.0 - p1 - p2 - p3 - p4
    p = [p0, p1, p2, p3, p4]
    total = 0.0
    for n, q in zip(counts, p):
        if q < 0.0:
            return None
        if n > 0:
            if q == 0.0:
                return None
            total += n * math.log(q)
    return total


def nelder_mead(f, start, step, iterations=20000):
    """Minimizes f (None counts as +infinity) from `start`: the best point and its value."""
    def value(x):
        v = f(x)
        return math.inf if v is None else v

    n = len(start)
    simplex = [list(start)]
    for i in range(n):
        x = list(start)
        x[i] += step
        simplex.append(x)
    values = [value(x) for x in simplex]
    for _ in range(iterations):
        order = sorted(range(n + 1), key=lambda i: values[i])
        simplex = [simplex[i] for i in order]
        values = [values[i] for i in order]
        if abs(values[-1] - values[0]) < 1e-15 and max(
            abs(a - b) for x in simplex[1:] for a, b in zip(x, simplex[0])
        ) < 1e-13:
            break
        centroid = [sum(x[i] for x in simplex[:-1]) / n for i in range(n)]
        worst = simplex[-1]
        reflect = [c + (c - w) for c, w in zip(centroid, worst)]
        fr = value(reflect)
        if fr < values[0]:
            expand = [c + 2 * (c - w) for c, w in zip(centroid, worst)]
            fe = value(expand)
            simplex[-1], values[-1] = (expand, fe) if fe < fr else (reflect, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = reflect, fr
        else:
            contract = [c + 0.5 * (w - c) for c, w in zip(centroid, worst)]
            fc = value(contract)
            if fc < values[-1]:
                simplex[-1], values[-1] = contract, fc
            else:
                best = simplex[0]
                simplex = [best] + [[b + 0.5 * (a - b) for a, b in zip(x, best)] for x in simplex[1:]]
                values = [values[0]] + [value(x) for x in simplex[1:]]
    i = min(range(n + 1), key=lambda i: values[i])
    return simplex[i], values[i]


def max_log_likelihood(counts, s):
    """The largest sum n_k ln p_k over the pentanomial distributions of mean s, for counts
    with every pair score observed (the maximum is then inside the feasible set, where the
    search converges; on its boundary it would only creep towards it)."""
    assert all(n > 0 for n in counts), "every score observed"

    def f(x):
        v = log_likelihood(counts, x, s)
        return None if v is None else -v

    best = []
    # Several starts, each search restarted from where the last one ended with a smaller
    # step, so that no stalled simplex decides; the starts must agree.
    for start in ([0.2, 0.2, 0.2], [0.1, 0.5, 0.1], [0.05, 0.4, 0.15], [0.3, 0.1, 0.3]):
        if f(start) is None:
            continue
        x, v = start, f(start)
        for step in (0.05, 0.01, 0.001, 1e-4):
            x, v = nelder_mead(f, x, step)
        best.append(-v)
    assert max(best) - min(best) < 1e-9, best
    return max(best)


def llr(counts, elo0, elo1):
    return max_log_likelihood(counts, score_of_elo(elo1)) - max_log_likelihood(
        counts, score_of_elo(elo0)
    )


if __name__ == "__main__":
    for counts, elo0, elo1 in [
        ([10, 20, 40, 20, 10], 0, 5),
        ([5, 30, 100, 40, 9], 0, 5),
        ([5, 30, 100, 40, 9], -3, 3),
        ([1, 10, 50, 30, 9], 0, 50),
        ([2, 3, 40, 7, 1], 0, 10),
    ]:
        print(f"{counts} elo0={elo0} elo1={elo1}: llr {llr(counts, elo0, elo1):.9f}")
