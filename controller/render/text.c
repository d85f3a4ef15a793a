/* text.c -- text from outside as each output format writes it: terminal, markdown, CSV. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/text.h"
#include "utf8.h"
#include "xmalloc.h"
#include "banned.h"

/* Replace b->data[from..] with what rewrite made of it (a new string). */
static void replace_tail(struct buf *b, size_t from, char *tail)
{
	b->len = from;
	if (b->data)
		b->data[from] = '\0';
	buf_puts(b, tail);
	free(tail);
}

void text_terminal(struct buf *b, size_t from)
{
	if (!b->data || from >= b->len || utf8_text_is_clean(b->data + from))
		return;
	replace_tail(b, from, utf8_clean_text_dup(b->data + from));
}

void text_markdown(struct buf *b, size_t from)
{
	struct buf o = BUF_INIT;
	const char *p;

	text_terminal(b, from);
	if (!b->data || from >= b->len || !strpbrk(b->data + from, "<>"))
		return;
	for (p = b->data + from; *p; p++) {
		if (*p == '<')
			buf_puts(&o, "&lt;");
		else if (*p == '>')
			buf_puts(&o, "&gt;");
		else
			buf_append(&o, p, 1);
	}
	replace_tail(b, from, buf_detach(&o, NULL));
}

void text_markdown_cell(char **cell)
{
	struct buf o = BUF_INIT;
	const char *p;

	if (!*cell || !strchr(*cell, '|'))
		return;
	for (p = *cell; *p; p++) {
		if (*p == '|')
			buf_puts(&o, "\\");
		buf_append(&o, p, 1);
	}
	free(*cell);
	*cell = buf_detach(&o, NULL);
}

void text_csv_field(struct buf *out, const char *t)
{
	char *c = utf8_clean_dup(t);
	const char *p = c;
	/* '=' and '@' start a formula in a spreadsheet; '-' and '+' would too, but a mkfs option
	 * ("-b size=4k") and a signed figure start so: they are left as they are */
	bool formula = c[0] && strchr("=@", c[0]);

	if (!strpbrk(c, ",\"") && !formula) {
		buf_puts(out, c);
		free(c);
		return;
	}
	buf_puts(out, formula ? "\"'" : "\"");
	for (; *p; p++) {
		if (*p == '"')
			buf_puts(out, "\"");
		buf_append(out, p, 1);
	}
	buf_puts(out, "\"");
	free(c);
}

void text_fputs(const char *s, FILE *f)
{
	char *c;

	if (!s)
		return;
	if (utf8_text_is_clean(s)) {
		fputs(s, f);
		return;
	}
	c = utf8_clean_text_dup(s);
	fputs(c, f);
	free(c);
}
