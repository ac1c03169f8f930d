#!/bin/sh
# The live demo as a test: non-interactive, every step checked.
exec sh "${ZKELECT_TOP_SRCDIR:-.}/tests/demo.sh" --ci --builddir "${ZKELECT_TOP_BUILDDIR:-.}"
