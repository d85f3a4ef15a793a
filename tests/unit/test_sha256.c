/* test_sha256.c -- SHA-256 against the FIPS 180-4 examples and the padding edges. */
#include <stdlib.h>
#include <string.h>

#include "sha256.h"
#include "testutil.h"

static void check(const char *msg, size_t len, const char *want)
{
	char hex[65];

	sha256_hex(msg, len, hex);
	assert_string_equal(hex, want);
}

static void test_vectors(void **state)
{
	char *big = malloc(1000000);

	(void)state;
	check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
	      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(big, 'a', 1000000);
	/* 55 bytes: the length fits the first block; 56: it needs a second; 64: a whole block. */
	check(big, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
	check(big, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
	check(big, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
	check(big, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
