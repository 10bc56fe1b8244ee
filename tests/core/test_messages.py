"""Golden tests of the message catalogs, and the renderer that never raises."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from goalkeeper.core.messages import Lang, catalog, make_say, render, resolve_lang

EN = catalog("en")
ZH = catalog("zh")
KEYS = sorted(EN)
LANGS: list[Lang] = ["en", "zh"]


def _fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_catalogs_have_the_same_keys() -> None:
    """English and Chinese catalogs define exactly the same message keys."""
    assert set(EN) == set(ZH)


@pytest.mark.parametrize("key", KEYS)
def test_placeholders_match_across_languages(key: str) -> None:
    """Each message has the same ``{placeholders}`` in both languages."""
    assert _fields(EN[key]) == _fields(ZH[key])


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", KEYS)
def test_every_template_parses(lang: Lang, key: str) -> None:
    """Every template is a valid format string with named fields only."""
    fields = _fields(catalog(lang)[key])
    assert all(name.isidentifier() for name in fields)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", KEYS)
def test_every_message_renders_with_its_fields(lang: Lang, key: str) -> None:
    """Given all its fields, each message renders with no placeholder left."""
    template = catalog(lang)[key]
    values = {name: f"<{name}>" for name in _fields(template)}
    text = render(lang, key, **values)
    assert text
    assert all(f"<{name}>" in text for name in values)
    assert not any("{" + name + "}" in text for name in values)


@pytest.mark.parametrize("lang", LANGS)
def test_guidance_static_has_no_placeholders(lang: Lang) -> None:
    """``guidance.static`` is a static, cache-safe string without ``{`` placeholders."""
    template = catalog(lang)["guidance.static"]
    assert "{" not in template
    assert "}" not in template


def test_render_fills_fields() -> None:
    """Fields are substituted into the template."""
    assert "plan/topic.md" in render("en", "anchors.header", path="plan/topic.md")


def test_render_keeps_a_missing_field_visible() -> None:
    """A field that was not given stays visible as ``{field}``."""
    text = render("en", "gate.okr", n=2)
    assert "{path}" in text
    assert "2" in text


def test_render_without_fields_returns_the_template() -> None:
    """With no fields at all, the template comes back unchanged."""
    assert render("zh", "anchors.header") == ZH["anchors.header"]


def test_render_ignores_extra_fields() -> None:
    """Fields the template does not use are ignored."""
    assert render("en", "blocked.no_reason", extra=1) == EN["blocked.no_reason"]


def test_render_does_not_reformat_field_values() -> None:
    """Braces inside a field value are inserted literally."""
    text = render("en", "anchors.header", path="{oops}")
    assert "{oops}" in text


def test_render_unknown_key_falls_back_to_the_key() -> None:
    """An unknown key renders as the key itself, in either language."""
    assert render("en", "no.such.key") == "no.such.key"
    assert render("zh", "no.such.key", n=1) == "no.such.key"


def test_render_uses_the_chosen_language() -> None:
    """The Chinese catalog is used for ``zh``."""
    assert render("zh", "blocked.no_reason") == ZH["blocked.no_reason"]
    assert render("en", "blocked.no_reason") == EN["blocked.no_reason"]


def test_make_say_renders_in_its_language() -> None:
    """``make_say`` binds the language and renders like ``render``."""
    say = make_say("zh")
    assert say("gate.okr", n=1, path="p") == render("zh", "gate.okr", n=1, path="p")


def test_resolve_lang_fixed_setting_wins() -> None:
    """A fixed language setting ignores the samples."""
    assert resolve_lang("en", "中文计划") == "en"
    assert resolve_lang("zh", "English plan") == "zh"


def test_resolve_lang_auto_follows_the_first_sample_with_text() -> None:
    """``auto`` follows the first sample that has text, else English."""
    assert resolve_lang("auto", None, "", "中文计划", "English") == "zh"
    assert resolve_lang("auto", "English plan", "中文") == "en"
    assert resolve_lang("auto") == "en"


@given(
    st.sampled_from(LANGS),
    st.one_of(st.sampled_from(KEYS), st.text()),
    st.dictionaries(
        st.one_of(
            st.sampled_from(sorted({f for t in EN.values() for f in _fields(t)})),
            st.text(alphabet=string.ascii_letters, min_size=1),
        ),
        st.one_of(st.text(), st.integers(), st.floats(), st.none()),
        max_size=5,
    ),
)
def test_render_never_raises(lang: Lang, key: str, fields: dict[str, object]) -> None:
    """Any key with any fields renders to a string without raising."""
    assert isinstance(render(lang, key, **fields), str)
