"""The one way the bench scripts write their section of a document: the
text between a begin and an end marker is replaced, the rest of the file
kept; a document without the markers gets the section appended."""
import pathlib


def replace_block(doc, begin, end, block):
    """Write `block` (which starts with `begin` and ends with `end`) into `doc`."""
    doc = pathlib.Path(doc)
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    doc.write_text(text)


def current_block(doc, begin, end):
    """The section between the markers as the document holds it, or None."""
    text = pathlib.Path(doc).read_text()
    if begin not in text or end not in text:
        return None
    return text[text.index(begin):text.index(end) + len(end)]


def check_block(doc, begin, end, block, script):
    """0 when `doc` holds exactly `block` between the markers; else 1, with
    what to run printed."""
    if current_block(doc, begin, end) == block:
        return 0
    print(f"{doc}: the section between {begin} and {end} is not what {script} renders from its "
          f"committed results; run `{script} --render-only` (or measure again) and commit both", flush=True)
    return 1
