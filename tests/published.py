"""Published tables used by several tests (data only)."""

import numpy as np

# Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychological Bulletin
# 76(5), Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses (depression, personality
# disorder, schizophrenia, neurosis, other); cell = number of raters giving that diagnosis.
# Transcription as published in the quadagree R package (data_raw/fleiss1971.csv, "scraped by
# hand from Fleiss (1971)"); it reproduces every summary number the paper prints (below).
FLEISS_1971 = np.array(
    [
        [0, 0, 0, 6, 0],
        [0, 3, 0, 0, 3],
        [0, 1, 4, 0, 1],
        [0, 0, 0, 0, 6],
        [0, 3, 0, 3, 0],
        [2, 0, 4, 0, 0],
        [0, 0, 4, 0, 2],
        [2, 0, 3, 1, 0],
        [2, 0, 0, 4, 0],
        [0, 0, 0, 0, 6],
        [1, 0, 0, 5, 0],
        [1, 1, 0, 4, 0],
        [0, 3, 3, 0, 0],
        [1, 0, 0, 5, 0],
        [0, 2, 0, 3, 1],
        [0, 0, 5, 0, 1],
        [3, 0, 0, 1, 2],
        [5, 1, 0, 0, 0],
        [0, 2, 0, 4, 0],
        [1, 0, 2, 0, 3],
        [0, 0, 0, 0, 6],
        [0, 1, 0, 5, 0],
        [0, 2, 0, 1, 3],
        [2, 0, 0, 4, 0],
        [1, 0, 0, 4, 1],
        [0, 5, 0, 1, 0],
        [4, 0, 0, 0, 2],
        [0, 2, 0, 4, 0],
        [1, 0, 5, 0, 0],
        [0, 0, 0, 0, 6],
    ]
)
