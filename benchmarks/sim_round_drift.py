"""A second candidate for per-round cells whose judge drifts (design R3): not in the toolkit.

Se and Sp logit-linear in the round (4 parameters per model × deck), each round's prevalence π_t
free and integrated out on a grid (Jeffreys prior), so the share may follow any path over the
rounds (unlike :mod:`sim_round_trend`, which breaks on design R8). Likelihood per round: the
round's unlabelled verdicts Bin(·, p_t), p_t = Se_t π_t + (1 − Sp_t)(1 − π_t), and its labelled
items' (verdict, truth) pairs. Prior: Beta(½, ½)-like on Se and Sp at the middle round (logit
scale), N(0, 2.5²) on the two slopes over the whole range. Posterior of the 4 drift parameters:
mode by BFGS, a multivariate t (5 df, the inverse Hessian × 1.5) as importance proposal,
resampled; each round's interval is then ``correction.intervals.mixture_share_interval`` with the
round's (Se_t, Sp_t) draws (which draws π_t from its conditional given them).

    PYTHONPATH=. python benchmarks/sim_round_drift.py R3 200

prints per-round coverage (range, pooled, in / edge / out of 93–97 % by the Wilson interval),
mean width, how many round cells printed an interval (none when more than 1 % of the draws have
Se_t + Sp_t ≤ 1), the importance sampler's effective sample size and the worst cells.
"""

import sys
import time

import numpy as np
from scipy import optimize

from benchmarks.sim_correction_rounds import DESIGNS, simulate_deck
from wordplay_audit.analysis.correction.intervals import mixture_share_interval

G = 200
PI = (np.arange(G) + 0.5) / G
LOG_PRIOR_PI = -0.5 * np.log(PI) - 0.5 * np.log1p(-PI)
SLOPE_SD = 2.5


def expit(x):
    return 1 / (1 + np.exp(-x))


def log_post(theta, t, k1, k0, n1, n0, x1, x0):
    """theta (M, 4) -> (M,) log posterior (up to a constant)."""
    theta = np.atleast_2d(theta)
    tc = (t - 0.5)[None, :, None]  # 1 x R x 1
    se = expit(theta[:, 0, None, None] + theta[:, 1, None, None] * tc)  # M x R x 1
    sp = expit(theta[:, 2, None, None] + theta[:, 3, None, None] * tc)
    se = np.clip(se, 1e-12, 1 - 1e-12)
    sp = np.clip(sp, 1e-12, 1 - 1e-12)
    pi = PI[None, None, :]
    p = se * pi + (1 - sp) * (1 - pi)

    def f(a):
        return a[None, :, None]

    lf = (
        (f(k1 - n1)) * np.log(p)
        + f(k0 - n0) * np.log1p(-p)
        + f(x1) * np.log(se * pi)
        + f(n1 - x1) * np.log((1 - sp) * (1 - pi))
        + f(x0) * np.log((1 - se) * pi)
        + f(n0 - x0) * np.log(sp * (1 - pi))
        + LOG_PRIOR_PI[None, None, :]
    )
    m = lf.max(-1, keepdims=True)
    ll = (m[..., 0] + np.log(np.exp(lf - m).sum(-1))).sum(-1)
    # priors: Jeffreys-like on Se, Sp at mid-round (logit scale: p^.5 (1-p)^.5), normal slopes
    s_mid, p_mid = expit(theta[:, 0]), expit(theta[:, 2])
    lp = 0.5 * (np.log(s_mid) + np.log1p(-s_mid) + np.log(p_mid) + np.log1p(-p_mid))
    lp += -0.5 * (theta[:, 1] ** 2 + theta[:, 3] ** 2) / SLOPE_SD**2
    return ll + lp


def draws_for(t, k1, k0, n1, n0, x1, x0, m, rng):
    args = (t, k1, k0, n1, n0, x1, x0)

    def f(th):
        return -log_post(th, *args)[0]

    x0_ = np.array([1.5, 0.0, 1.5, 0.0])
    res = optimize.minimize(f, x0_, method="BFGS")
    mode = res.x
    # numerical Hessian
    h = 1e-3
    H = np.zeros((4, 4))
    for i in range(4):
        for j in range(i, 4):
            e_i = np.eye(4)[i] * h
            e_j = np.eye(4)[j] * h
            H[i, j] = H[j, i] = (
                f(mode + e_i + e_j) - f(mode + e_i - e_j) - f(mode - e_i + e_j) + f(mode - e_i - e_j)
            ) / (4 * h * h)
    try:
        cov = np.linalg.inv(H)
        np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        cov = np.linalg.pinv(H) + np.eye(4) * 1e-3
    cov = (cov + cov.T) / 2 * 1.5
    nu, M = 5, 4 * m
    L = np.linalg.cholesky(cov + np.eye(4) * 1e-9)
    z = rng.standard_normal((M, 4))
    w = rng.chisquare(nu, M) / nu
    prop = mode + (z / np.sqrt(w)[:, None]) @ L.T
    dq = np.einsum("ij,ij->i", z, z) / w  # Mahalanobis^2
    log_q = -0.5 * (nu + 4) * np.log1p(dq / nu)
    lw = log_post(prop, *args) - log_q
    lw -= lw.max()
    wt = np.exp(lw)
    wt /= wt.sum()
    ess = 1 / (wt**2).sum()
    pick = rng.choice(M, size=m, p=wt)
    return prop[pick], ess


def run(name, campaigns, seed=20261201, m=1000):
    d = DESIGNS[name]
    rng = np.random.default_rng(seed)
    hits, widths, ess_all = {}, {}, []
    t0 = time.time()
    for _ in range(campaigns):
        for key in d.prevalence:
            r, judge, human, lab = simulate_deck(d, key, rng)
            R = d.rounds
            t = np.arange(R) / (R - 1)
            rounds = np.arange(1, R + 1)
            per_round_of = r[None, :] == rounds[:, None]  # R x n
            k1, k0 = (per_round_of & judge).sum(1).astype(float), (per_round_of & ~judge).sum(1).astype(float)
            n1, n0 = (
                (per_round_of & lab & judge).sum(1).astype(float),
                (per_round_of & lab & ~judge).sum(1).astype(float),
            )
            x1, x0 = (
                (per_round_of & lab & judge & human).sum(1).astype(float),
                (per_round_of & lab & ~judge & human).sum(1).astype(float),
            )
            th, ess = draws_for(t, k1, k0, n1, n0, x1, x0, m, rng)
            ess_all.append(ess)
            for i, rr in enumerate(range(1, R + 1)):
                se_t = expit(th[:, 0] + th[:, 1] * (t[i] - 0.5))
                sp_t = expit(th[:, 2] + th[:, 3] * (t[i] - 0.5))
                lo, hi = mixture_share_interval(
                    se_t,
                    sp_t,
                    verdicts=(int(k1[i]), int(k0[i])),
                    labelled=(int(n1[i]), int(n0[i])),
                    labelled_true=(int(x1[i]), int(x0[i])),
                    rng=rng,
                )
                target = human[r == rr].mean()
                k = (key, rr)
                if np.isfinite(lo):
                    hits.setdefault(k, []).append(lo - 1e-12 <= target <= hi + 1e-12)
                    widths.setdefault(k, []).append(hi - lo)
    cov = np.array([np.mean(v) for v in hits.values()])
    ns = np.array([len(v) for v in hits.values()])
    z = 1.96
    cen = (cov + z**2 / (2 * ns)) / (1 + z**2 / ns)
    half = z * np.sqrt(cov * (1 - cov) / ns + z**2 / (4 * ns**2)) / (1 + z**2 / ns)
    inn = ((cov >= 0.93) & (cov <= 0.97)).sum()
    out = ((cen + half < 0.93) | (cen - half > 0.97)).sum()
    worst = sorted(hits, key=lambda k: abs(np.mean(hits[k]) - 0.95))[-3:]
    print(
        f"{name} drift ({campaigns} campaigns, {time.time() - t0:.0f} s): coverage {cov.min():.3f}-{cov.max():.3f} pooled "
        f"{np.concatenate([np.array(v) for v in hits.values()]).mean():.3f}; in/edge/out {inn}/{len(cov) - inn - out}/{out}; "
        f"width {np.mean([np.mean(v) for v in widths.values()]):.3f}; printed {ns.sum()}/{campaigns * len(d.prevalence) * d.rounds}; "
        f"ESS median {np.median(ess_all):.0f} min {np.min(ess_all):.0f}; worst {[(k, round(float(np.mean(hits[k])), 3), len(hits[k])) for k in worst]}",
        flush=True,
    )


if __name__ == "__main__":
    run(sys.argv[1], int(sys.argv[2]))
