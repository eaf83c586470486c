"""The two small datasets crowd-kit's own tests aggregate (its tests/conftest.py: the "toy
YSDA" set of 5 workers × 5 tasks and the "simple" set imitating Toloka answers, with their
ground truth and gold labels), as data; the expected outputs published beside them in
crowd-kit's tests/aggregation/data_*.py are written into the tests that use them."""

import pandas as pd

TOY = pd.DataFrame(
    [
        ["w1", "t1", "no"], ["w1", "t2", "yes"], ["w1", "t3", "yes"], ["w1", "t4", "yes"], ["w1", "t5", "yes"],
        ["w2", "t1", "yes"], ["w2", "t2", "yes"], ["w2", "t3", "no"], ["w2", "t4", "yes"], ["w2", "t5", "no"],
        ["w3", "t2", "yes"], ["w3", "t3", "no"], ["w3", "t4", "yes"], ["w3", "t5", "no"],
        ["w4", "t1", "yes"], ["w4", "t2", "no"], ["w4", "t3", "yes"], ["w4", "t4", "yes"], ["w4", "t5", "no"],
        ["w5", "t1", "no"], ["w5", "t2", "no"], ["w5", "t3", "no"], ["w5", "t4", "yes"], ["w5", "t5", "no"],
    ],
    columns=["worker", "task", "label"],
)  # fmt: skip
TOY_TRUTH = pd.Series({"t1": "yes", "t2": "yes", "t3": "no", "t4": "yes", "t5": "no"})
TOY_GOLD = pd.Series({"t1": "yes", "t2": "yes"})

_W = {
    "good1": "bde3b214b06c1efa6cb1bc6284dc72d2",
    "good2": "b17c3301ad2ccbb798716fdd405d16e8",
    "good3": "a452e450f913cfa987cad58d50393718",
    "good4": "0f65edea0a6dc7b9acba1dea313bbb3d",
    "fraud": "0c3eb7d5fcc414db137c4180a654c06e",
    "careless": "e563e2fb32fce9f00123a65a1bc78c55",
}
_T = "1231239876--5fac0d234ffb2f3b00893"
SIMPLE = pd.DataFrame(
    [
        [_W["good1"], _T + "eec", "goose"], [_W["good1"], _T + "efb", "parrot"], [_W["good1"], _T + "f03", "goose"],
        [_W["good1"], _T + "f05", "goose"], [_W["good1"], _T + "f02", "parrot"], [_W["good1"], _T + "f08", "parrot"],
        [_W["good2"], _T + "efb", "parrot"], [_W["good2"], _T + "ee8", "chicken"], [_W["good2"], _T + "f07", "parrot"],
        [_W["good2"], _T + "efd", "chicken"], [_W["good2"], _T + "ee4", "chicken"], [_W["good2"], _T + "f03", "goose"],
        [_W["good3"], _T + "ee8", "chicken"], [_W["good3"], _T + "eec", "goose"], [_W["good3"], _T + "f05", "goose"],
        [_W["good3"], _T + "f02", "parrot"], [_W["good3"], _T + "f08", "parrot"],
        [_W["good4"], _T + "eec", "goose"], [_W["good4"], _T + "ee8", "chicken"], [_W["good4"], _T + "f03", "goose"],
        [_W["good4"], _T + "ee4", "chicken"],
        [_W["fraud"], _T + "eec", "parrot"], [_W["fraud"], _T + "efb", "parrot"], [_W["fraud"], _T + "f07", "parrot"],
        [_W["fraud"], _T + "efd", "parrot"], [_W["fraud"], _T + "ee4", "parrot"], [_W["fraud"], _T + "f05", "parrot"],
        [_W["careless"], _T + "efb", "parrot"], [_W["careless"], _T + "ee8", "goose"],
        [_W["careless"], _T + "f02", "parrot"], [_W["careless"], _T + "f08", "parrot"],
        [_W["careless"], _T + "f07", "parrot"], [_W["careless"], _T + "efd", "goose"],
    ],
    columns=["worker", "task", "label"],
)  # fmt: skip
SIMPLE_TRUTH = pd.Series(
    {
        _T + "eec": "goose", _T + "f03": "goose", _T + "f05": "goose",
        _T + "efb": "parrot", _T + "f02": "parrot", _T + "f08": "parrot", _T + "f07": "parrot",
        _T + "ee8": "chicken", _T + "efd": "chicken", _T + "ee4": "chicken",
    }
)  # fmt: skip
SIMPLE_GOLD = pd.Series({_T + "eec": "goose", _T + "efb": "parrot", _T + "ee8": "chicken"})
SIMPLE_TASKS = [_T + s for s in ("ee4", "ee8", "eec", "efb", "efd", "f02", "f03", "f05", "f07", "f08")]
WORKERS = _W
