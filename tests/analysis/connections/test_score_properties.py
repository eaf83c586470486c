"""Property tests: scores do not depend on the order of words or of groups."""

from hypothesis import given, settings
from hypothesis import strategies as st

from wordplay_audit.analysis.connections import score_game

WORDS = st.lists(
    st.text(alphabet="ABCDEFGHIJ", min_size=1, max_size=4), min_size=16, max_size=16, unique=True
)


@st.composite
def game_and_answer(draw):
    words = draw(WORDS)
    gold = [words[i : i + 4] for i in range(0, 16, 4)]
    # an answer: a permutation of the 16 words cut into 4 groups, some gold groups kept whole
    keep = draw(st.lists(st.booleans(), min_size=4, max_size=4))
    kept = [g for g, k in zip(gold, keep, strict=True) if k]
    rest = [w for g, k in zip(gold, keep, strict=True) if not k for w in g]
    rest = draw(st.permutations(rest))
    groups = kept + [list(rest[i : i + 4]) for i in range(0, len(rest), 4)]
    names = [f"n{i}" for i in range(len(groups))]
    yes = {(n, j) for n in names for j in range(4) if draw(st.booleans())}
    return gold, dict(zip(names, groups, strict=True)), yes


@settings(max_examples=300, deadline=None)
@given(game_and_answer(), st.data())
def test_permutations_leave_scores_unchanged(case, data):
    gold, answer, yes = case
    base = score_game(gold, answer, yes=yes)
    shuffled_items = data.draw(st.permutations(list(answer.items())))
    permuted = {name: data.draw(st.permutations(words)) for name, words in shuffled_items}
    permuted_gold = [data.draw(st.permutations(g)) for g in gold]  # order within gold groups
    again = score_game(permuted_gold, permuted, yes=yes)
    assert again == base
    # the counted groups are exactly the kept whole ones
    assert base.unweighted == sum(base.reproduced)
    assert 0 <= base.categorical <= base.unweighted <= 4
    assert base.weighted == sum(i + 1 for i, r in enumerate(base.reproduced) if r)
