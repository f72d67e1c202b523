#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write BYTES of text for the cross-check's gzip run: lines of words drawn
from a vocabulary of made-up words (the same output every time), which
compresses about as well as prose.

    gen-text.py BYTES OUTPUT
"""
import random
import sys


def main():
    size, path = int(sys.argv[1]), sys.argv[2]
    rnd = random.Random(1)
    letters = 'etaoinshrdlcumwfgypbvkjxqz'
    weights = [26 - i for i in range(26)]
    vocab = [''.join(rnd.choices(letters, weights, k=rnd.randint(2, 11)))
             for _ in range(3000)]
    out, n = [], 0
    while n < size:
        line = ' '.join(rnd.choice(vocab[:rnd.choice((100, 3000))])
                        for _ in range(rnd.randint(6, 16))) + '\n'
        out.append(line)
        n += len(line)
    with open(path, 'w') as f:
        f.write(''.join(out)[:size])


if __name__ == '__main__':
    main()
