"""Tests of the report renderers: LaTeX from the report structure, and the PDF build."""
