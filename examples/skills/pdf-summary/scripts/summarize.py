"""Prints one paragraph per page of a PDF, prefixed with its page number."""
import sys


def main(path: str) -> None:
    from pypdf import PdfReader  # installed by the host that runs the skill

    for number, page in enumerate(PdfReader(path).pages, start=1):
        text = " ".join((page.extract_text() or "").split())
        print(f"[p. {number}] {text}")


if __name__ == "__main__":
    main(sys.argv[1])
