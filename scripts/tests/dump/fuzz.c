// SPDX-License-Identifier: GPL-2.0
/*
 * The dump parser (scripts/tools/lib/dump.c) under libFuzzer, built with
 * AddressSanitizer and UndefinedBehaviorSanitizer by
 * scripts/tests/test_dump.py:
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined \
 *         -Dfuzz_one_input=LLVMFuzzerTestOneInput ... fuzz.c dump.c ...
 *   fuzz CORPUS_DIR...        every file once (what make check runs)
 *   fuzz -seed=1 -runs=N DIR  N inputs made from the corpus
 *
 * Each input is read as a saved print and as the print of "all" (the
 * expectation of a live one), with a filter, then sorted both ways: any
 * overflow, out-of-bounds access, leak (also on the paths that refuse)
 * or undefined behaviour is a crash.  What the parser says of a refused
 * input goes to standard error (libFuzzer's -close_fd_mask=2 hides it).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../tools/lib/dump.h"

int fuzz_one_input(const unsigned char *data, size_t size);

static void parse(const unsigned char *data, size_t size, const struct filter *f,
		  const struct expect *e)
{
	char *text = malloc(size + 1);
	struct print p;
	int i;

	memcpy(text, data, size);
	text[size] = 0;
	if (print_parse(text, &p, f, e, "input")) {
		for (i = 0; i < p.n; i++) {
			dump_sort(&p.d[i], true);
			dump_sort(&p.d[i], false);
		}
		(void)print_traced(&p);
		print_free(&p);
	}
	free(text);
}

/* libFuzzer's LLVMFuzzerTestOneInput(), by that name through -D. */
int fuzz_one_input(const unsigned char *data, size_t size)
{
	static const struct filter any = { 0 };
	static const struct filter some = {
		.module = "leaky", .comm = "sh", .pids = { 5 }, .npids = 1,
		.older = 100, .only_leaks = true,
	};
	static const struct expect saved = { 0 }, all = { "all", 0 };

	parse(data, size, &any, &saved);
	parse(data, size, &some, &all);
	return 0;
}
