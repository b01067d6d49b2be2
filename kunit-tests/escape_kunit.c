// SPDX-License-Identifier: GPL-2.0
/*
 * The "slabtrace_escape" suite proves that a word a user chose reaches a
 * log line escaped as the files escape names (a byte above 0x9f, which
 * %pE leaves raw, as \xNN; a backslash doubled; a newline as \n), with
 * its quote and space escaped too, and that a word too long for the
 * buffer is cut after a whole escape and ends with "...".
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include <slabtrace/core.h>

struct esc_case {
	const char *desc;
	const char *in;
	size_t size;		/* of the buffer; 0: SLABTRACE_ESC_SIZE */
	const char *out;
};

static const struct esc_case esc_cases[] = {
	{ "a plain name", "kmalloc-64", 0, "kmalloc-64" },
	{ "a Latin-1 byte", "caf\xe9", 0, "caf\\xe9" },
	{ "a quote", "it's", 0, "it\\x27s" },
	{ "a backslash", "a\\x41", 0, "a\\\\x41" },
	{ "a newline", "a\nb", 0, "a\\nb" },
	{ "a space, an ESC", "a b\x1b", 0, "a\\x20b\\e" },
	{ "a double quote stays", "a\"b", 0, "a\"b" },
	{ "just fits", "abcdefg", 8, "abcdefg" },
	{ "cut", "abcdefgh", 8, "abcd..." },
	{ "cut before an escape, not in it", "ab\xe9\xe9", 8, "ab..." },
	{ "no room but for the dots", "\xe9\xe9", 4, "..." },
};

static void esc_desc(const struct esc_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(esc, esc_cases, esc_desc);

static void slabtrace_escape_word(struct kunit *test)
{
	const struct esc_case *c = test->param_value;
	size_t size = c->size ?: SLABTRACE_ESC_SIZE;
	char *buf = kunit_kzalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_EXPECT_PTR_EQ(test, slabtrace_esc(buf, size, c->in, strlen(c->in)),
			    (const char *)buf);
	KUNIT_EXPECT_STREQ(test, buf, c->out);
}

/* The length given, not the NUL: a word of argv cut by the caller. */
static void slabtrace_escape_length(struct kunit *test)
{
	char buf[16];

	KUNIT_EXPECT_STREQ(test, slabtrace_esc(buf, sizeof(buf), "abc'def", 3),
			   "abc");
	KUNIT_EXPECT_STREQ(test, slabtrace_esc(buf, sizeof(buf), "", 0), "");
}

/* Any cache name fits SLABTRACE_ESC_SIZE whole, each byte an escape. */
static void slabtrace_escape_longest_name(struct kunit *test)
{
	char name[SLABTRACE_NAME_MAX + 1], *buf;

	buf = kunit_kzalloc(test, SLABTRACE_ESC_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(name, 0xff, SLABTRACE_NAME_MAX);
	name[SLABTRACE_NAME_MAX] = '\0';
	slabtrace_esc(buf, SLABTRACE_ESC_SIZE, name, SLABTRACE_NAME_MAX);
	KUNIT_EXPECT_EQ(test, strlen(buf), 4 * SLABTRACE_NAME_MAX);
	KUNIT_EXPECT_STREQ(test, buf + 4 * (SLABTRACE_NAME_MAX - 1), "\\xff");
}

static struct kunit_case slabtrace_escape_cases[] = {
	KUNIT_CASE_PARAM(slabtrace_escape_word, esc_gen_params),
	KUNIT_CASE(slabtrace_escape_length),
	KUNIT_CASE(slabtrace_escape_longest_name),
	{}
};

static struct kunit_suite slabtrace_escape_suite = {
	.name = "slabtrace_escape",
	.test_cases = slabtrace_escape_cases,
};

kunit_test_suite(slabtrace_escape_suite);

MODULE_LICENSE("GPL");
