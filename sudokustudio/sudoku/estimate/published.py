"""The published minimal-puzzle counts per 9x9 grid our estimates stand beside (REFERENCES.md):
Afmob's, Berthier's and seed 000's ten-minute table, each c as (value, relative error)."""

# REFERENCES.md: minimal c-clue puzzles per 9x9 grid (value, relative error)
PUBLISHED_MINIMALS = {
    "afmob": {19: (2.132e3, 0.139), 20: (3.204e6, 0.013), 21: (1.285e9, 0.0028), 22: (1.616e11, 0.0011),
              23: (6.908e12, 0.0006), 24: (1.064e14, 0.0005), 25: (6.250e14, 0.0005),
              26: (1.485e15, 0.0009), 27: (1.529e15, 0.0034), 28: (7.325e14, 0.030)},
    "berthier": {20: (6.152e6, 0.707), 21: (1.4654e9, 0.0781), 22: (1.6208e11, 0.0123),
                 23: (6.8827e12, 0.0030), 24: (1.0637e14, 0.0012), 25: (6.2495e14, 0.00074),
                 26: (1.4855e15, 0.00071), 27: (1.5228e15, 0.0010), 28: (7.2063e14, 0.0020),
                 29: (1.6751e14, 0.0056), 30: (1.9277e13, 0.022), 31: (1.1240e12, 0.116)},
    # seed 000's ten-minute subsets (s = 30) table (Red Ed, 2013): a short run, not a record,
    # the line the record table starts from
    "seed000": {20: (4.4984e6, 0.3606), 21: (1.5421e9, 0.1155), 22: (1.7614e11, 0.0542),
                23: (7.1658e12, 0.0280), 24: (1.0672e14, 0.0194), 25: (6.3499e14, 0.0173),
                26: (1.5065e15, 0.0215), 27: (1.4694e15, 0.0470), 28: (6.0348e14, 0.1966),
                29: (7.8010e14, 0.7071)},
}
# the total over all c per grid (REFERENCES.md; Afmob gives no total)
PUBLISHED_TOTALS = {"berthier": (4.6563e15, 0.00065)}
