"""Renderers: the resolved API -> the text of every generated file, in memory."""
