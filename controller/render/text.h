/* text.h -- text from outside (an agent's words and values, stored or live) as each output
 * format must write it: the terminal's rule, markdown's, CSV's. HTML's is report_html.h's
 * JSON embedding. */
#ifndef FT_TEXT_H
#define FT_TEXT_H

#include <stdio.h>

#include "buf.h"

/* Rewrite b->data from byte from on for a terminal: utf8.h's rule (escape sequences, C1
 * controls, bidi overrides written as \xHH / \uHHHH), newlines and tabs kept. */
void text_terminal(struct buf *b, size_t from);
/* Write s (may be NULL) to f by the terminal's rule. */
void text_fputs(const char *s, FILE *f);
/* The same for markdown, and no HTML: every '<' and '>' as &lt; and &gt; (a renderer would
 * run an agent's <script> or <img onerror>). */
void text_markdown(struct buf *b, size_t from);
/* A markdown table cell's text in place: '|' as "\|" (it would split the cell). */
void text_markdown_cell(char **cell);
/* Append t as one CSV field: cleaned by utf8.h's rule, quoted when it holds ',' or '"', and
 * a field a spreadsheet would take as a formula (starting with '=' or '@') written quoted
 * with a leading "'" ('-' and '+' start mkfs options and signed figures: left alone). */
void text_csv_field(struct buf *out, const char *t);

#endif
