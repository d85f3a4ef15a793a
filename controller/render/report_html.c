/* report_html.c -- the sweep's self-contained HTML report: web/report.html with its scripts
 * and styles inlined and the sweep document embedded. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/sweepdoc.h"
#include "render/report_html.h"
#include "xmalloc.h"
#include "banned.h"

/* Read web_dir/rel into out; refuses paths that climb out of web_dir. */
static int web_file_read(const char *web_dir, const char *rel, struct buf *out, struct err *e)
{
	char *path;
	int rc;

	if (strstr(rel, "..") || rel[0] == '/' || strstr(rel, "://"))
		return err_set(e, -EINVAL, ERR_BAD_TEMPLATE, "report.html: refusing to inline '%s'",
		               rel);
	path = xasprintf("%s/%s", web_dir, rel);
	rc = buf_read_file(out, path, 64u << 20);
	if (rc < 0)
		err_set(e, rc, ERR_WEB_UNREADABLE, "cannot read '%s': %s", path, strerror(-rc));
	free(path);
	return rc;
}

/* Append text with every "</" written as "<\/" so it cannot close the script element. */
static void script_safe_append(struct buf *out, const char *t, size_t n)
{
	size_t i, start = 0;

	for (i = 0; i + 1 < n; i++) {
		if (t[i] == '<' && t[i + 1] == '/') {
			buf_append(out, t + start, i + 1 - start);
			buf_puts(out, "\\");
			start = i + 1;
		}
	}
	buf_append(out, t + start, n - start);
}

void report_html_json_append(struct buf *out, const char *t, size_t n)
{
	size_t i, start = 0, skip;

	for (i = 0; i < n; i++) {
		const char *esc = t[i] == '<'   ? "\\u003c"
		                  : t[i] == '>' ? "\\u003e"
		                  : t[i] == '&' ? "\\u0026"
		                                : NULL;

		skip = 1;
		/* U+2028 and U+2029 (E2 80 A8/A9): line ends to a script, not to JSON */
		if (!esc && i + 2 < n && (unsigned char)t[i] == 0xe2 &&
		    (unsigned char)t[i + 1] == 0x80 &&
		    ((unsigned char)t[i + 2] == 0xa8 || (unsigned char)t[i + 2] == 0xa9)) {
			esc = (unsigned char)t[i + 2] == 0xa8 ? "\\u2028" : "\\u2029";
			skip = 3;
		}
		if (!esc)
			continue;
		buf_append(out, t + start, i - start);
		buf_puts(out, esc);
		start = i + skip;
		i += skip - 1;
	}
	buf_append(out, t + start, n - start);
}

/* Value of attribute attr="..." inside the tag text [tag, end). Caller frees. */
static char *tag_attr(const char *tag, const char *end, const char *attr)
{
	char pat[32];
	const char *p, *q;

	snprintf(pat, sizeof(pat), "%s=\"", attr);
	p = strstr(tag, pat);
	if (!p || p >= end)
		return NULL;
	p += strlen(pat);
	q = strchr(p, '"');
	if (!q || q > end)
		return NULL;
	return xstrndup(p, (size_t)(q - p));
}

int report_html_build(const struct sweep *s, const char *tmpl, const char *web_dir, struct buf *out,
                      struct err *e)
{
	const char *p = tmpl, *data_tag = "<script id=\"sweep-data\" type=\"application/json\">";
	char *json = NULL, *src = NULL;
	bool data_done = false;
	int rc = 0;

	json = sweepdoc_write(s);
	while (*p) {
		const char *lt = strchr(p, '<'), *gt;
		struct buf f = BUF_INIT;

		if (!lt) {
			buf_puts(out, p);
			break;
		}
		buf_append(out, p, (size_t)(lt - p));
		gt = strchr(lt, '>');
		if (!gt) {
			buf_puts(out, lt);
			break;
		}
		if (!strncmp(lt, data_tag, strlen(data_tag))) {
			const char *close = strstr(gt, "</script>");

			if (!close) {
				rc = err_set(e, -EINVAL, ERR_BAD_TEMPLATE,
				             "report.html: sweep-data script is not closed");
				goto out;
			}
			buf_puts(out, data_tag);
			report_html_json_append(out, json, strlen(json));
			buf_puts(out, "</script>");
			p = close + strlen("</script>");
			data_done = true;
			continue;
		}
		if (!strncmp(lt, "<script", 7) && (src = tag_attr(lt, gt, "src")) &&
		    !strncmp(gt + 1, "</script>", 9)) {
			if ((rc = web_file_read(web_dir, src, &f, e)) < 0)
				goto out;
			buf_puts(out, "<script>");
			script_safe_append(out, f.data, f.len);
			buf_puts(out, "</script>");
			buf_release(&f);
			p = gt + 1 + 9;
		} else if (!strncmp(lt, "<link", 5) && strstr(lt, "rel=\"stylesheet\"") &&
		           strstr(lt, "rel=\"stylesheet\"") < gt &&
		           (src = tag_attr(lt, gt, "href"))) {
			if ((rc = web_file_read(web_dir, src, &f, e)) < 0)
				goto out;
			buf_puts(out, "<style>");
			script_safe_append(out, f.data, f.len);
			buf_puts(out, "</style>");
			buf_release(&f);
			p = gt + 1;
		} else {
			buf_append(out, lt, (size_t)(gt + 1 - lt));
			p = gt + 1;
		}
		free(src);
		src = NULL;
	}
	if (!data_done)
		rc = err_set(e, -EINVAL, ERR_BAD_TEMPLATE,
		             "report.html has no <script id=\"sweep-data\" "
		             "type=\"application/json\"></script>");
out:
	free(src);
	free(json);
	return rc;
}

int report_html_write(const struct sweep *s, const char *web_dir, const char *path, struct err *e)
{
	struct buf tmpl = BUF_INIT, out = BUF_INIT;
	int rc;

	rc = web_file_read(web_dir, "report.html", &tmpl, e);
	if (rc < 0)
		goto out;
	rc = report_html_build(s, tmpl.data, web_dir, &out, e);
	if (rc < 0)
		goto out;
	rc = buf_write_file(path, out.data, out.len);
	if (rc < 0)
		err_set(e, rc, ERR_WRITE_FAILED, "cannot write '%s': %s", path, strerror(-rc));
out:
	buf_release(&tmpl);
	buf_release(&out);
	return rc;
}

int report_html_page(const char *tmpl, const char *data_id, const char *json, struct buf *out,
                     struct err *e)
{
	struct buf tag = BUF_INIT;
	const char *at, *close;
	int rc = 0;

	buf_printf(&tag, "<script id=\"%s\" type=\"application/json\">", data_id);
	at = strstr(tmpl, tag.data);
	close = at ? strstr(at + tag.len, "</script>") : NULL;
	if (!close) {
		rc = err_set(e, -EINVAL, ERR_BAD_TEMPLATE,
		             "the page template has no <script id=\"%s\" type=\"application/json\">"
		             "</script>",
		             data_id);
		goto out;
	}
	buf_append(out, tmpl, (size_t)(at - tmpl) + tag.len);
	report_html_json_append(out, json, strlen(json));
	buf_puts(out, close);
out:
	buf_release(&tag);
	return rc;
}
