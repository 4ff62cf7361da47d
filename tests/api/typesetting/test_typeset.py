"""Typesetting with typst (attention_api/typesetting/typeset.py): a label is a string literal,
printed as text in every format and never read as markup or code; the compiler reads no file."""

import io
import json

import pytest
import typst
from pypdf import PdfReader

from attention_api.typesetting.typeset import EPOCH, compile_source, literal

HOSTILE = ['#import "/etc/passwd"', r"\input{/etc/passwd}", "}{", '"', "\\", "]", "$x$ *b* _i_",
           "<l> @r // c /* c", "= h", "a\nb", "tab\there", "\x07bell", "#read(\"/etc/passwd\")"]


@pytest.mark.parametrize(("text", "source"), [
    ("cat", '"cat"'), ('a"b', '"a\\"b"'), ("a\\b", '"a\\\\b"'), ("a\nb", '"a\\nb"'),
    ("\x07", '"\\u{7}"'), ("#import", '"#import"'), ("}{", '"}{"'), ("é ∑ 猫", '"é ∑ 猫"'),
])
def test_a_literal_escapes_the_quote_the_backslash_and_control_characters(text, source):
    assert literal(text) == source


@pytest.mark.parametrize("label", HOSTILE)
def test_a_literal_reads_back_as_the_same_string(label):
    # typst's own evaluator reads the literal (and answers its value as JSON): the string
    # it gets is the label, unchanged; printed, it is the label's text.
    assert json.loads(typst.eval(b"", literal(label))) == label
    shown = compile_source(f"#set page(width: 12cm, height: auto)\n#{literal(label)}", "pdf")
    text = PdfReader(io.BytesIO(shown)).pages[0].extract_text()
    # Compared without white space (a tab prints as nothing) or the bell (no glyph: 0).
    assert "".join(text.split()).replace("\x00", "") == "".join(label.split()).replace("\x07", "")


def _page(body: str) -> str:
    return f"#set page(width: 14cm, height: auto, margin: 1cm)\n{body}"


@pytest.mark.parametrize("fmt", ["svg", "png", "pdf"])
@pytest.mark.parametrize("label", HOSTILE)
def test_a_label_is_drawn_as_the_text_it_is_in_every_format(label, fmt):
    # The same text given to typst as data (sys.inputs, which it never reads as markup)
    # draws the same picture: the literal carried text, and nothing of it ran.
    ours = compile_source(_page(f"Token: #{literal(label)}."), fmt, ppi=72)
    with_data = typst.compile(_page("Token: #sys.inputs.label.").encode(), format=fmt, ppi=72,
                              sys_inputs={"label": label}, ignore_system_fonts=True,
                              timestamp=int(EPOCH.timestamp()))
    if fmt == "pdf":  # a PDF carries its own IDs: compare what it says
        def said(pdf):
            return PdfReader(io.BytesIO(pdf)).pages[0].extract_text()
        assert said(ours) == said(with_data)
    else:
        assert ours == with_data


def test_the_compiler_reads_no_file_outside_its_empty_folder():
    with pytest.raises(typst.TypstError, match="file not found"):
        compile_source('#read("/etc/passwd")', "pdf")
    with pytest.raises(typst.TypstError):
        compile_source('#import "/etc/passwd"', "pdf")


def test_the_same_source_gives_the_same_pdf_bytes():
    source = _page("$ s_j = (q dot k_j) / sqrt(d_k) $")
    assert compile_source(source, "pdf") == compile_source(source, "pdf")
    assert compile_source(source, "pdf").startswith(b"%PDF-")
    assert compile_source(source, "png", ppi=72).startswith(b"\x89PNG\r\n\x1a\n")
    assert compile_source(source, "svg").startswith(b"<svg")


def test_the_comparison_tells_markup_from_text():
    # The same label written into the markup itself is read as markup (bold): a different
    # picture, so the test above would see a label that was not escaped.
    as_markup = compile_source(_page("Token: *b*."), "png", ppi=72)
    as_text = compile_source(_page(f"Token: #{literal('*b*')}."), "png", ppi=72)
    assert as_markup != as_text


def test_a_document_is_typeset_in_a_process_of_its_own(monkeypatch):
    # typst run in the server's process keeps memory after the document is sent (what it
    # memoised, glibc's freed pages: typeset.py); a process of its own gives it all back.
    def in_this_process(*args, **kwargs):
        raise AssertionError("typst ran in this process")

    monkeypatch.setattr(typst, "compile", in_this_process)
    assert compile_source(_page("$ z_i $"), "pdf").startswith(b"%PDF-")
    assert compile_source(_page("$ z_i $"), "png", ppi=72).startswith(b"\x89PNG\r\n\x1a\n")
