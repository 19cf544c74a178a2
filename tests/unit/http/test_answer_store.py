"""The response cache's store (``http/answer_store.py``) and table reader
(``http/read_tables.py``), without a database: exact eviction, the race rule, the live flag,
the size bound."""

from __future__ import annotations

from contentapi.http.answer_store import AnswerStore, KeptAnswer
from contentapi.http.read_tables import ReadTables
from contentapi.http.response_cache import asks_for_caller


def _answer(*tables: str) -> KeptAnswer:
    return KeptAnswer(b"{}", frozenset(tables))


def _live(size: int = 10) -> AnswerStore:
    store = AnswerStore(size)
    store.set_live(True)
    return store


def test_a_change_evicts_exactly_the_answers_that_read_its_table():
    store = _live()
    store.put("articles+authors", _answer("articles", "authors"), store.sequence)
    store.put("categories", _answer("categories"), store.sequence)
    store.changed("authors")
    assert store.get("articles+authors") is None
    assert store.get("categories") is not None
    assert store.counters.evictions == 1


def test_an_answer_read_before_a_change_to_its_tables_is_not_kept():
    store = _live()
    started = store.sequence  # the read starts
    store.changed("authors")  # a change commits and is heard meanwhile
    assert not store.put("authors", _answer("authors"), started)
    assert store.counters.refused == 1
    # a change to a table it did not read does not refuse it
    started = store.sequence
    store.changed("categories")
    assert store.put("authors", _answer("authors"), started)


def test_nothing_is_served_or_kept_while_changes_are_not_heard():
    store = AnswerStore(10)
    assert not store.put("a", _answer("articles"), store.sequence)
    store.set_live(True)
    started = store.sequence
    store.put("a", _answer("articles"), started)
    assert store.get("a") is not None
    started = store.sequence
    store.set_live(False)  # the listener lost its connection
    assert store.get("a") is None
    store.set_live(True)
    assert store.get("a") is None  # forgotten when it stopped being trusted
    assert not store.put("a", _answer("articles"), started)  # read across the outage


def test_the_size_bound_drops_the_oldest_and_its_index():
    store = _live(size=2)
    for name in ("a", "b", "c"):
        store.put(name, _answer(name), store.sequence)
    assert len(store) == 2 and "a" not in store and store.counters.dropped == 1
    store.changed("a")  # the dropped answer's table: nothing left to evict
    assert store.counters.evictions == 0 and len(store) == 2


def test_the_byte_bound_drops_the_oldest_bodies():
    store = AnswerStore(10, max_bytes=10)
    store.set_live(True)
    for name in ("a", "b", "c"):
        store.put(name, KeptAnswer(b"x" * 4, frozenset({name})), store.sequence)
    assert "a" not in store and len(store) == 2 and store.bytes == 8
    assert not store.put("big", KeptAnswer(b"x" * 11, frozenset()), store.sequence)
    store.changed("b")
    assert store.bytes == 4


def test_clear_forgets_everything_and_refuses_reads_in_flight():
    store = _live()
    started = store.sequence
    store.put("a", _answer("articles"), started)
    store.clear("i18n_locale")
    assert store.get("a") is None
    assert not store.put("a", _answer("articles"), started)


def test_read_tables_finds_quoted_and_bare_names_of_known_tables_only():
    tables = ReadTables(["articles", "articles_author_links", "authors", "files"])
    sql = (
        'SELECT articles.id, "articles_author_links".author_id FROM articles '
        "JOIN \"articles_author_links\" ON true WHERE title = 'authors' AND id IN (SELECT 1)"
    )
    # a string literal naming a table only adds a dependency: never one too few
    assert tables.of([sql]) == {"articles", "articles_author_links", "authors"}
    assert tables.of(["SELECT 1", "SELECT * FROM files"]) == {"files"}


def test_graphql_documents_naming_the_caller_are_recognised():
    assert asks_for_caller("{ me { id } }")
    assert asks_for_caller("query { usersPermissionsUsers { data { id } } }")
    assert not asks_for_caller("{ articles { data { id attributes { title } } } }")
    assert not asks_for_caller("{ memes { data { id } } }")
