/* test_ctl_report_html.c -- the self-contained HTML report: scripts and styles inlined, the
 * sweep document embedded with "</" escaped, templates and paths refused. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ctltest.h"
#include "report_html.h"
#include "sweep.h"

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
	assert_non_null(strstr(b.data, "anvil <\\/script> tuning"));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
