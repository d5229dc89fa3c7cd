/* The streaming JSON writer writes what jansson's dump of the same tree
 * writes, byte for byte, and refuses misuse. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/util.h>

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A deterministic generator so a failure repeats. */
static uint64_t next_random(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return *state >> 11;
}

static const char *const sample_strings[] = {
    "",      "plain",           "quote\" and \\ backslash", "tab\tnew\nline\r",
    "\x01\x1f control", "caf\xc3\xa9 utf-8", "slash / kept",  "bell\b form\f",
};

static double sample_real(uint64_t *state)
{
    static const double fixed[] = {0.0,     -0.0,     1.0,    0.5,         1e20,  1e-5,
                                   123456789012.0, 3.14159265358979, -2.5e-300, 1e300, 0.1};
    const uint64_t r = next_random(state);
    if (r % 3 == 0)
        return fixed[(r / 3) % (sizeof(fixed) / sizeof(fixed[0]))];
    const double mantissa = (double)(next_random(state) % 2000001) / 1000.0 - 1000.0;
    return ldexp(mantissa, (int)(next_random(state) % 200) - 100);
}

/* Builds a random value as a jansson tree and writes the same value through
 * the writer. */
static json_t *random_value(mb_json_writer *w, uint64_t *state, int depth)
{
    const unsigned kind = (unsigned)(next_random(state) % (depth >= 5 ? 6 : 8));
    switch (kind) {
    case 0: {
        int64_t v = (int64_t)next_random(state);
        switch (next_random(state) % 4) {
        case 0: v = INT64_MIN; break;
        case 1: v = INT64_MAX; break;
        case 2: v = -(v % 1000); break;
        default: break;
        }
        mb_json_int(w, v);
        return json_integer((json_int_t)v);
    }
    case 1: {
        const double v = sample_real(state);
        mb_json_real(w, v, 10);
        return json_real(v);
    }
    case 2: {
        const char *s = sample_strings[next_random(state) % (sizeof(sample_strings) / sizeof(sample_strings[0]))];
        mb_json_string(w, s);
        return json_string(s);
    }
    case 3: mb_json_bool(w, 1); return json_true();
    case 4: mb_json_bool(w, 0); return json_false();
    case 5: mb_json_null(w); return json_null();
    case 6: {
        json_t *a = json_array();
        mb_json_array_begin(w);
        for (uint64_t n = next_random(state) % 4; n; n--)
            json_array_append_new(a, random_value(w, state, depth + 1));
        mb_json_array_end(w);
        return a;
    }
    default: {
        json_t *o = json_object();
        mb_json_object_begin(w);
        for (uint64_t n = next_random(state) % 4, k = 0; k < n; k++) {
            char key[32];
            snprintf(key, sizeof(key), k == 1 ? "key \"%u\"" : "k%u", (unsigned)k);
            mb_json_key(w, key);
            json_object_set_new(o, key, random_value(w, state, depth + 1));
        }
        mb_json_object_end(w);
        return o;
    }
    }
}

static void check_against_jansson(unsigned indent, size_t flags)
{
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t state = seed;
        mb_buf text = MB_BUF_INIT;
        mb_json_writer w;
        mb_json_init(&w, &text, indent);
        json_t *tree = random_value(&w, &state, 0);
        assert_true(mb_json_ok(&w));
        char *expected = json_dumps(tree, flags | JSON_ENCODE_ANY | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        assert_non_null(expected);
        assert_string_equal(text.data, expected);
        free(expected);
        json_decref(tree);
        mb_buf_free(&text);
    }
}

static void test_same_text_as_jansson(void **state)
{
    (void)state;
    check_against_jansson(1, JSON_INDENT(1));
    check_against_jansson(2, JSON_INDENT(2));
    check_against_jansson(0, JSON_COMPACT);
}

static void test_small_document(void **state)
{
    (void)state;
    mb_buf text = MB_BUF_INIT;
    mb_json_writer w;
    mb_json_init(&w, &text, 1);
    mb_json_object_begin(&w);
    mb_json_key(&w, "n");
    mb_json_int(&w, -42);
    mb_json_key(&w, "empty");
    mb_json_array_begin(&w);
    mb_json_array_end(&w);
    mb_json_key(&w, "x");
    mb_json_real(&w, 2.0, 10);
    mb_json_key(&w, "nan");
    mb_json_real(&w, NAN, 10);
    mb_json_key(&w, "none");
    mb_json_string(&w, NULL);
    mb_json_object_end(&w);
    assert_true(mb_json_ok(&w));
    assert_string_equal(text.data, "{\n \"n\": -42,\n \"empty\": [],\n \"x\": 2.0,\n \"nan\": null,\n \"none\": null\n}");
    mb_buf_free(&text);
}

static void test_misuse_is_reported(void **state)
{
    (void)state;
    mb_buf text = MB_BUF_INIT;
    mb_json_writer w;

    mb_json_init(&w, &text, 1); /* a member without its key */
    mb_json_object_begin(&w);
    mb_json_int(&w, 1);
    mb_json_object_end(&w);
    assert_false(mb_json_ok(&w));

    mb_json_init(&w, &text, 1); /* a key inside an array */
    mb_json_array_begin(&w);
    mb_json_key(&w, "k");
    mb_json_int(&w, 1);
    mb_json_array_end(&w);
    assert_false(mb_json_ok(&w));

    mb_json_init(&w, &text, 1); /* a key without its value */
    mb_json_object_begin(&w);
    mb_json_key(&w, "k");
    mb_json_object_end(&w);
    assert_false(mb_json_ok(&w));

    mb_json_init(&w, &text, 1); /* closed with the wrong bracket, then left open */
    mb_json_array_begin(&w);
    mb_json_object_end(&w);
    assert_false(mb_json_ok(&w));
    mb_json_init(&w, &text, 1);
    mb_json_array_begin(&w);
    assert_false(mb_json_ok(&w));

    mb_json_init(&w, &text, 0); /* a close with nothing open */
    mb_json_array_end(&w);
    assert_false(mb_json_ok(&w));

    mb_json_init(&w, &text, 0); /* deeper than the limit */
    for (int d = 0; d <= MB_JSON_MAX_DEPTH; d++)
        mb_json_array_begin(&w);
    assert_false(mb_json_ok(&w));
    mb_buf_free(&text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_text_as_jansson),
        cmocka_unit_test(test_small_document),
        cmocka_unit_test(test_misuse_is_reported),
    };
    return cmocka_run_group_tests_name("json writer", tests, NULL, NULL);
}
