"""The renaming engine on small documents: identifiers found where a domain declares them and standing on
their own in text (never inside a longer word or number), one bijection per kind drawn from a seed, names
and value rules, and the properties the engine guarantees: a bijection onto fresh identifiers, one
renaming everywhere, no old identifier surviving, and an inverse that undoes it."""

from __future__ import annotations

import random
import string
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tau2.errors import UserInputError
from tau2.rebrand import Delta, IdFormat, SurvivorSearch, build_renaming, load_delta, prefix_of, stands_out
from tau2.rebrand._numbers import numbers_changed
from tau2.tasks import Domain
from tau2.world import IdentifierKind, Identifiers, ToolTable

DECLARATION = Identifiers(
    kinds=(
        IdentifierKind("customer", "C{digits:5}", fields=("customer_id",), keys=("customers",)),
        IdentifierKind("line", "{prefix}{digits:6}", fields=("line_id", "line_ids")),
        IdentifierKind("order", "#W{digits:8}", fields=("order_id",), keys=("orders",)),
        IdentifierKind("account", "{hex:10}", fields=("account_id",)),
    ),
    data_files=("db.json",),
)


class _Nothing(BaseModel):
    pass


def domain(declaration: Identifiers = DECLARATION) -> Domain[Any]:
    return Domain(
        name="toy",
        description="a toy",
        tools=ToolTable(),
        load_state=lambda _: _Nothing(),
        identifiers=declaration,
    )


DATA: dict[str, Any] = {
    "customers": {
        "C1001": {"customer_id": "C1001", "name": "Ada Quinn", "line_ids": ["L1002", "L10021"]},
        "C100": {"customer_id": "C100", "name": "Bo Lind", "line_ids": []},
    },
    "orders": {"#W2378156": {"order_id": "#W2378156", "account_id": "01", "note": "see /orders/W2378156"}},
    "log": {"C1001_20251110": "Called from https://shop.example/orders/#W2378156?x=1 about L1002."},
    "prices": {"tee": 12.5},
}


def renaming_of(
    data: Any = DATA, seed: int = 7, delta: Delta | None = None, texts: tuple[str, ...] = ()
) -> Any:
    return build_renaming(domain(), delta or Delta(), seed, [data], texts)


def test_identifiers_are_found_where_declared_and_each_gets_one_of_its_format() -> None:
    renaming = renaming_of()
    assert renaming.kind_of == {
        "C1001": "customer",
        "C100": "customer",
        "L1002": "line",
        "L10021": "line",
        "#W2378156": "order",
        "01": "account",
    }
    new = renaming.identifiers
    assert IdFormat.parse("C{digits:5}").pattern().fullmatch(new["C1001"])
    assert new["L1002"].startswith("L") and len(new["L1002"]) == 7  # {prefix} keeps the kind's letter
    assert new["#W2378156"].startswith("#W")


def test_exact_values_keys_and_standing_text_are_renamed_never_a_part_of_a_longer_word() -> None:
    renaming = renaming_of()
    new = renaming.identifiers
    out = renaming.document(DATA)
    customer = out["customers"][new["C1001"]]
    assert customer["customer_id"] == new["C1001"]
    assert customer["line_ids"] == [new["L1002"], new["L10021"]]  # a prefix of another id is told apart
    assert set(out["customers"]) == {new["C1001"], new["C100"]}
    order = out["orders"][new["#W2378156"]]
    assert order["account_id"] == new["01"]  # a short id is renamed where declared
    log = out["log"][f"{new['C1001']}_20251110"]  # an id before `_` stands on its own
    assert log == f"Called from https://shop.example/orders/{new['#W2378156']}?x=1 about {new['L1002']}."
    assert order["note"] == "see /orders/W2378156"  # without its `#` it is another word
    assert out["prices"] == {"tee": 12.5}


def test_short_identifiers_are_not_looked_for_in_text() -> None:
    renaming = renaming_of()
    assert not stands_out("01") and not stands_out("123456") and stands_out("1008292230")
    assert renaming.text("paid on 11/01/2025, account 01") == "paid on 11/01/2025, account 01"


def test_names_change_as_words_in_capitals_too() -> None:
    renaming = renaming_of(delta=Delta(names={"Ada": "Mirel", "Quinn": "Dasov"}))
    assert renaming.text("Ada Quinn (ADA QUINN) met Adam at Ada_Labs.") == (
        "Mirel Dasov (MIREL DASOV) met Adam at Ada_Labs."
    )


def test_protected_words_keep_the_identifiers_inside_them() -> None:
    declaration = Identifiers(
        kinds=DECLARATION.kinds, data_files=("db.json",), protected=("close_C1001_card",)
    )
    renaming = build_renaming(domain(declaration), Delta(), 7, [DATA])
    new = renaming.identifiers["C1001"]
    assert renaming.text("call close_C1001_card for C1001_x") == f"call close_C1001_card for {new}_x"


def test_the_same_seed_gives_the_same_renaming_and_another_seed_another() -> None:
    assert renaming_of(seed=3).identifiers == renaming_of(seed=3).identifiers
    assert renaming_of(seed=3).identifiers != renaming_of(seed=4).identifiers


def test_a_new_identifier_never_repeats_a_word_the_sources_write() -> None:
    # the format can only write C00000…C00009; the texts already write all but one of them
    declaration = Identifiers(
        kinds=(IdentifierKind("customer", "C0000{digits:1}", fields=("customer_id",)),),
        data_files=("db.json",),
    )
    taken = " ".join(f"C0000{digit}" for digit in range(9))
    renaming = build_renaming(domain(declaration), Delta(), 0, [{"customer_id": "C1001"}], [taken])
    assert renaming.identifiers == {"C1001": "C00009"}


def test_a_format_too_crowded_or_too_short_is_refused_in_one_line() -> None:
    declaration = Identifiers(
        kinds=(IdentifierKind("customer", "C{digits:1}0000", fields=("customer_id",)),),
        data_files=("db.json",),
    )
    many = [{"customer_id": f"X{number:04d}"} for number in range(6)]
    with pytest.raises(UserInputError, match="has room for 10 identifiers, too few for the 6"):
        build_renaming(domain(declaration), Delta(), 0, many)
    with pytest.raises(UserInputError, match="too short to be told from other text"):
        build_renaming(domain(), Delta(identifiers={"customer": "{digits:4}"}), 0, [DATA])
    with pytest.raises(UserInputError, match="no kind 'client'"):
        build_renaming(domain(), Delta(identifiers={"client": "{digits:8}"}), 0, [DATA])


def test_a_name_target_the_data_already_writes_is_refused() -> None:
    with pytest.raises(UserInputError, match="'Bo' becomes 'Lind', which the data already writes"):
        renaming_of(delta=Delta(names={"Bo": "Lind"}))


def test_value_rules_change_numbers_keep_their_form_and_policy_phrases() -> None:
    delta = Delta.model_validate(
        {
            "values": [{"name": "prices", "factor": 2, "fields": ["prices.*"], "arguments": ["pay.amount"]}],
            "policy_numbers": [
                {
                    "name": "fees",
                    "factor": 1.5,
                    "decimals": 0,
                    "phrases": ["$100 per passenger"],
                    "arguments": [],
                }
            ],
        }
    )
    data = {**DATA, "prices": {"tee": 12.5, "cap": "$1,204.50", "sock": 3}}
    renaming = renaming_of(data, delta=delta)
    assert renaming.document(data)["prices"] == {"tee": 25.0, "cap": "$2,409.00", "sock": 6}
    assert renaming.arguments("pay", {"amount": 7, "order_id": "#W2378156"})["amount"] == 14
    assert renaming.arguments("refund", {"amount": 7})["amount"] == 7
    assert renaming.text("A certificate of $100 per passenger, not $100 per bag.") == (
        "A certificate of $150 per passenger, not $100 per bag."
    )


def test_identifiers_in_json_text_arguments_are_renamed_as_data() -> None:
    renaming = renaming_of()
    new = renaming.identifiers
    renamed = renaming.arguments("call", {"arguments": '{"account_id": "01", "note": "C1001"}'})
    assert renamed == {"arguments": f'{{"account_id": "{new["01"]}", "note": "{new["C1001"]}"}}'}


def test_identifier_formats() -> None:
    assert IdFormat.parse("C{digits:4}").room == 10_000
    assert prefix_of("credit_card_7815826") == "credit_card_"
    assert prefix_of("C1001") == "C" and prefix_of("chk_ada_blue") == "chk_" and prefix_of("ada") == ""
    rng = random.Random(1)
    assert (
        IdFormat.parse("{prefix}{hex:6}")
        .pattern("gift_card_1")
        .fullmatch(IdFormat.parse("{prefix}{hex:6}").draw(rng, "gift_card_1"))
    )
    for bad, why in [
        ("C1001", "needs at least one placeholder"),
        ("{digits}", "unknown placeholder"),
        ("{emoji:3}", "unknown placeholder"),
        ("{digits:0}", "1 to 32"),
        ("C{digits:4", "braces only enclose"),
    ]:
        with pytest.raises(ValueError, match=why):
            IdFormat.parse(bad)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("names = 3", "names: Input should be a valid dictionary"),
        ('[names]\nAda = "Ada"', "'Ada' is mapped to itself"),
        ('[names]\nAda = "Mo"\nBo = "Mo"', "both become 'Mo'"),
        ('[names]\nAda = "Bo"\nBo = "Mo"', "which is itself renamed"),
        ('[identifiers]\nuser = "{lower:3"', "braces only enclose"),
        ('[[values]]\nname = "p"\nfactor = 0\nfields = ["price"]', "greater than 0"),
        ('[[values]]\nname = "p"\nfactor = 2', "names no fields or arguments"),
        ('[[policy_numbers]]\nname = "p"\nfactor = 2\nphrases = ["no number"]', "holds no number"),
        ('colour = "blue"', "colour: Extra inputs are not permitted"),
        ("seed = ", "invalid TOML"),
        ("seed = " + "7" * 5_000, "an integer of more than 4,300 digits"),
    ],
)
def test_a_bad_delta_is_one_line_naming_the_file(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "delta.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(UserInputError) as caught:
        load_delta(path)
    assert message in str(caught.value) and str(caught.value).startswith(str(path))
    assert "\n" not in str(caught.value)


def test_a_delta_factor_keeps_its_decimal_text(tmp_path: Path) -> None:
    path = tmp_path / "delta.toml"
    path.write_text('[[values]]\nname = "p"\nfactor = 1.1\nfields = ["price"]', encoding="utf-8")
    assert load_delta(path).values[0].factor == Decimal("1.1")


# Properties ------------------------------------------------------------------------------------------------

WORDS = st.text(string.ascii_letters, min_size=1, max_size=8)
CUSTOMER = st.from_regex(r"C[0-9]{3,6}", fullmatch=True)
ORDER = st.from_regex(r"#W[0-9]{7}", fullmatch=True)
SEPARATORS = st.sampled_from([" ", ", ", "/", "_", "-", "(", ")", ". ", "=", "\n"])


@st.composite
def documents(draw: st.DrawFn) -> tuple[dict[str, Any], list[str]]:
    """A database of customers and orders whose texts mention the ids among other words, and free texts."""
    customers = draw(st.lists(CUSTOMER, min_size=1, max_size=6, unique=True))
    orders = draw(st.lists(ORDER, min_size=0, max_size=4, unique=True))
    ids = customers + orders

    def text() -> str:
        pieces = draw(st.lists(st.one_of(WORDS, st.sampled_from(ids)), min_size=1, max_size=8))
        return "".join(piece + draw(SEPARATORS) for piece in pieces)

    data = {
        "customers": {cid: {"customer_id": cid, "about": text()} for cid in customers},
        "orders": {oid: {"order_id": oid, "customer_id": draw(st.sampled_from(customers))} for oid in orders},
    }
    return data, [text() for _ in range(draw(st.integers(0, 3)))]


@settings(max_examples=60, deadline=None)
@given(document=documents(), seed=st.integers(0, 2**32))
def test_the_renaming_is_a_bijection_onto_fresh_identifiers_of_each_kinds_format(
    document: tuple[dict[str, Any], list[str]], seed: int
) -> None:
    data, texts = document
    renaming = build_renaming(domain(), Delta(), seed, [data], texts)
    new = list(renaming.identifiers.values())
    assert len(set(new)) == len(new)
    assert not set(new) & set(renaming.identifiers)
    for old, fresh in renaming.identifiers.items():
        kind = renaming.kind_of[old]
        assert renaming.kinds.formats[kind].pattern(old).fullmatch(fresh)


@settings(max_examples=60, deadline=None)
@given(document=documents(), seed=st.integers(0, 2**32))
def test_one_identifier_is_renamed_alike_everywhere_and_none_survives(
    document: tuple[dict[str, Any], list[str]], seed: int
) -> None:
    data, texts = document
    renaming = build_renaming(domain(), Delta(), seed, [data], texts)
    out = renaming.document(data)
    for old, record in data["customers"].items():
        new = renaming.identifiers[old]
        assert out["customers"][new]["customer_id"] == new
        assert out["customers"][new]["about"] == renaming.text(record["about"])
    for old, record in data["orders"].items():
        renamed = out["orders"][renaming.identifiers[old]]
        assert renamed["customer_id"] == renaming.identifiers[record["customer_id"]]
    search = SurvivorSearch(renaming.kinds, renaming.identifiers)
    assert list(search.in_document(out)) == []
    assert [found for text in texts for found in search.in_text(renaming.text(text))] == []


@settings(max_examples=60, deadline=None)
@given(document=documents(), seed=st.integers(0, 2**32))
def test_the_inverse_undoes_the_renaming_and_is_undone_by_it(
    document: tuple[dict[str, Any], list[str]], seed: int
) -> None:
    data, texts = document
    delta = Delta(names={"Quinn": "Dasovel"}) if "Dasovel" not in str(document) else Delta()
    renaming = build_renaming(domain(), delta, seed, [data], texts)
    inverse = renaming.inverse()
    assert inverse.document(renaming.document(data)) == data
    assert [inverse.text(renaming.text(text)) for text in texts] == texts
    assert inverse.inverse().identifiers == renaming.identifiers
    assert inverse.inverse().names == renaming.names


def test_numbers_in_text_change_as_they_are_written_and_never_inside_another_word() -> None:
    values = {
        Decimal("-17.99"): Decimal("-35.98"),
        Decimal("123"): Decimal("9"),
        Decimal("1204.5"): Decimal("7"),
    }
    text = "refund -17.99 (-17.99), call 555-123-2002 or x-123, pay $1,204.50, 123 items, v1.123, 1230"
    assert numbers_changed(text, values.get) == (
        "refund -35.98 (-35.98), call 555-123-2002 or x-123, pay $7.00, 9 items, v1.123, 1230"
    )
