/* errcode.c -- the error-code table's words and HTTP statuses. */
#include <stddef.h>
#include <string.h>

#include "errcode.h"
#include "banned.h"

/* clang-format off */
static const struct {
	const char *word;
	int status;
} codes[ERR_CODE_N] = {
	[ERR_NONE] = { "", 500 },
#define ERR_CODE_ROW(name, w, s) [name] = { w, s },
	ERR_CODES(ERR_CODE_ROW)
#undef ERR_CODE_ROW
};
/* clang-format on */

const char *err_code_name(enum err_code c)
{
	if ((int)c < 0 || c >= ERR_CODE_N)
		return codes[ERR_INTERNAL].word;
	return codes[c].word;
}

enum err_code err_code_parse(const char *word)
{
	int c;

	if (!word || !word[0])
		return ERR_NONE;
	for (c = ERR_NONE + 1; c < ERR_CODE_N; c++)
		if (!strcmp(codes[c].word, word))
			return (enum err_code)c;
	return ERR_UNLISTED;
}

int err_code_status(enum err_code c)
{
	if ((int)c < 0 || c >= ERR_CODE_N)
		return 500;
	return codes[c].status;
}
