/* test_ctl_report_html.c -- the self-contained HTML report: scripts and styles inlined, the
 * sweep document embedded with "</" escaped, templates and paths refused. */
#include <stdlib.h>
#include <jansson.h>
#include <string.h>

#include "ctltest.h"
#include "model/sweep.h"
#include "render/report_html.h"
#include "testutil.h"
#include "xmalloc.h"

static void test_html(void **state)
{
	char *dir = tu_tmpdir();
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	const char *tmpl = "<!doctype html><html><head><link rel=\"stylesheet\" href=\"style.css\">"
	                   "<script id=\"sweep-data\" type=\"application/json\"></script>"
	                   "</head><body><div id=\"x\"></div>"
	                   "<script src=\"vendor/chart.js\"></script>"
	                   "<script src=\"report.js\"></script></body></html>";

	(void)state;
	tu_write(dir, "style.css", "body{color:red}", 0644);
	tu_write(dir, "vendor/chart.js", "var chart='</div>';", 0644);
	tu_write(dir, "report.js",
	         "render(JSON.parse(document.getElementById('sweep-data')"
	         ".textContent));",
	         0644);
	ctltest_seed003(&s);
	assert_int_equal(report_html_build(&s, tmpl, dir, &b, &e), 0);
	assert_non_null(strstr(b.data, "<style>body{color:red}</style>"));
	assert_non_null(strstr(b.data, "<script>var chart='<\\/div>';</script>"));
	assert_non_null(strstr(b.data, "<script>render(JSON.parse("));
	assert_null(strstr(b.data, "src="));
	assert_non_null(strstr(b.data, "<script id=\"sweep-data\" type=\"application/json\">{"));
	/* The plan name's "</script>" is escaped inside the data block. */
	assert_non_null(strstr(b.data, "anvil \\u003c/script\\u003e tuning"));
	assert_null(strstr(b.data, "anvil </script>"));
	buf_release(&b);
	/* A template without the data element is refused; so is a path out of the web dir. */
	assert_int_not_equal(report_html_build(&s, "<html></html>", dir, &b, &e), 0);
	buf_release(&b);
	assert_int_not_equal(
	        report_html_build(&s, "<script src=\"../etc/passwd\"></script>", dir, &b, &e), 0);
	assert_non_null(strstr(e.msg, "refusing"));
	buf_release(&b);
	sweep_release(&s);
	tu_rmrf(dir);
	free(dir);
}

/* Issue 23 item 9: a name "<!--<script>" (a comment opener, then a script tag: the HTML
 * parser's "script data escaped" state, which swallows the real end of the element) is
 * escaped in the data block, which stays one element the page can parse. */
static void test_html_comment_opener(void **state)
{
	char *dir = tu_tmpdir();
	struct sweep s;
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	const char *tmpl = "<html><head><script id=\"sweep-data\" type=\"application/json\">"
	                   "</script></head><body></body></html>";
	const char *data, *end;

	(void)state;
	ctltest_seed003(&s);
	free(s.plan.name);
	s.plan.name = xstrdup("<!--<script>");
	assert_int_equal(report_html_build(&s, tmpl, dir, &b, &e), 0);
	data = strstr(b.data, "type=\"application/json\">");
	assert_non_null(data);
	end = strstr(data, "</script>");
	assert_non_null(end);
	/* Nothing in the data block that the HTML tokenizer reads as markup. */
	if (memchr(data + 25, '<', (size_t)(end - data - 25)))
		fail_msg("a '<' inside the data block: %.*s", (int)(end - data), data);
	assert_non_null(strstr(b.data, "\\u003c!--\\u003cscript\\u003e"));
	buf_release(&b);
	sweep_release(&s);
	tu_rmrf(dir);
	free(dir);
}

/* A page and the site's index (report_html_page) embed JSON the same way: "<!--<script>" in
 * a name or an agent's value blanked every table (issue 31 #7); U+2028/9 too. */
static void test_page_comment_opener(void **state)
{
	struct buf b = BUF_INIT;
	struct err e = { 0 };
	const char *tmpl = "<html><script id=\"site-data\" type=\"application/json\"></script>"
	                   "<p>after</p></html>";
	const char *json = "{\"name\":\"x <!--<script> y & </script>\",\"v\":\"a\xe2\x80\xa8"
	                   "b\xe2\x80\xa9"
	                   "c\"}";
	const char *data, *end;
	json_t *j;

	(void)state;
	assert_int_equal(report_html_page(tmpl, "site-data", json, &b, &e), 0);
	data = strstr(b.data, "type=\"application/json\">") + strlen("type=\"application/json\">");
	end = strstr(data, "</script>");
	assert_non_null(end);
	if (memchr(data, '<', (size_t)(end - data)) || memchr(data, '>', (size_t)(end - data)))
		fail_msg("markup inside the data block: %.*s", (int)(end - data), data);
	assert_null(strstr(b.data, "\xe2\x80\xa8"));
	assert_non_null(strstr(data, "\\u2028b\\u2029c"));
	assert_non_null(strstr(end, "<p>after</p>"));
	j = json_loadb(data, (size_t)(end - data), 0, NULL);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "name")),
	                    "x <!--<script> y & </script>");
	json_decref(j);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html_comment_opener),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_page_comment_opener),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
