#!/usr/bin/env python3
"""Independent check of skillc's exact stratified test (report/across.h).

Written from the definition, not from the C code: with the tasks as strata
and each stratum's total passes fixed, the candidate's passes x_i in stratum
i are hypergeometric under "the skill changes nothing" (common odds ratio 1):
    P(x_i) = C(nb_i, x_i) C(na_i, t_i - x_i) / C(na_i + nb_i, t_i).
The one-sided p-value is P(sum x_i >= observed sum). Here every vector
(x_1..x_k) is enumerated and the products summed in exact rational
arithmetic (the C code convolves in floating point instead).

Usage: strata-exact.py < cases.in > strata-cases.txt
Each input line: base_pass/base_n:cand_pass/cand_n,... (one pair per task).
Each output line: the input line, a space, the p-value to 15 digits."""
import itertools
import sys
from fractions import Fraction
from math import comb


def support(na, nb, t):
    return range(max(0, t - na), min(nb, t) + 1)


def pmf(na, nb, t, x):
    return Fraction(comb(nb, x) * comb(na, t - x), comb(na + nb, t))


def strat_p(strata):
    obs = sum(b for a, na, b, nb in strata)
    ranges = [list(support(na, nb, a + b)) for a, na, b, nb in strata]
    p = Fraction(0)
    for xs in itertools.product(*ranges):
        if sum(xs) < obs:
            continue
        w = Fraction(1)
        for (a, na, b, nb), x in zip(strata, xs):
            w *= pmf(na, nb, a + b, x)
        p += w
    return p


def parse(line):
    out = []
    for part in line.split(","):
        base, cand = part.split(":")
        a, na = map(int, base.split("/"))
        b, nb = map(int, cand.split("/"))
        out.append((a, na, b, nb))
    return out


for line in sys.stdin:
    line = line.strip()
    if not line or line.startswith("#"):
        continue
    print("%s %.15g" % (line, float(strat_p(parse(line)))))
