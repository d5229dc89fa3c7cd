/* minibench util: error records, arena, buffer, string map, whole-file
 * reads and atomic writes. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/util.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* -------------------------------------------------------------- errors */

static void test_error_format(void **state)
{
    (void)state;
    mb_error err;
    char buf[256];

    mb_error_clear(&err);
    assert_int_equal(err.status, MB_OK);
    assert_string_equal(err.msg, "");

    assert_int_equal(mb_error_set(&err, MB_ERR_PARSE, "a.ptx", 3, 7, "expected %s", "';'"),
                     MB_ERR_PARSE);
    assert_int_equal(err.status, MB_ERR_PARSE);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 7);
    int n = mb_error_format(&err, buf, sizeof(buf));
    assert_string_equal(buf, "a.ptx:3:7: error: expected ';'");
    assert_int_equal(n, (int)strlen(buf));

    /* Without a column, without a line, without a file. */
    mb_error_set(&err, MB_ERR_INVALID, "a.ptx", 3, 0, "bad");
    mb_error_format(&err, buf, sizeof(buf));
    assert_string_equal(buf, "a.ptx:3: error: bad");
    mb_error_set(&err, MB_ERR_IO, "/tmp/x", 0, 0, "cannot open: %s", "No such file");
    mb_error_format(&err, buf, sizeof(buf));
    assert_string_equal(buf, "/tmp/x: error: cannot open: No such file");
    mb_error_set(&err, MB_ERR_NOMEM, NULL, 5, 5, "out of memory");
    assert_string_equal(err.file, "");
    mb_error_format(&err, buf, sizeof(buf));
    assert_string_equal(buf, "error: out of memory");
    mb_error_set(&err, MB_ERR_LIMIT, "", 0, 0, "%d bytes", 42);
    mb_error_format(&err, buf, sizeof(buf));
    assert_string_equal(buf, "error: 42 bytes");

    /* Like snprintf: truncates and returns the full length. */
    mb_error_set(&err, MB_ERR_PARSE, "file.ptx", 10, 20, "0123456789");
    char small[8];
    n = mb_error_format(&err, small, sizeof(small));
    assert_int_equal(n, (int)strlen("file.ptx:10:20: error: 0123456789"));
    assert_string_equal(small, "file.pt");
    assert_int_equal(mb_error_format(&err, NULL, 0), n);

    /* Over-long messages and file names are cut, not overflowed. */
    char longmsg[3000];
    memset(longmsg, 'x', sizeof(longmsg) - 1);
    longmsg[sizeof(longmsg) - 1] = '\0';
    mb_error_set(&err, MB_ERR_PARSE, longmsg, 1, 1, "%s", longmsg);
    assert_int_equal(strlen(err.msg), sizeof(err.msg) - 1);
    assert_int_equal(strlen(err.file), sizeof(err.file) - 1);

    /* A NULL record is allowed everywhere. */
    assert_int_equal(mb_error_set(NULL, MB_ERR_FAULT, "f", 1, 1, "x"), MB_ERR_FAULT);
    mb_error_clear(NULL);

    assert_string_equal(mb_status_name(MB_OK), "ok");
    assert_string_equal(mb_status_name(MB_ERR_PARSE), "parse error");
    assert_string_equal(mb_status_name(MB_ERR_IO), "I/O error");
    assert_string_equal(mb_status_name(MB_ERR_LIMIT), "limit exceeded");
    assert_string_equal(mb_status_name(MB_ERR_UNSUPPORTED), "unsupported");
    assert_string_equal(mb_status_name((mb_status)99), "unknown status");
}

/* --------------------------------------------------------------- arena */

static void test_arena_many_allocs(void **state)
{
    (void)state;
    mb_arena *a = mb_arena_new();
    assert_non_null(a);
    assert_int_equal(mb_arena_used(a), 0);
    enum { COUNT = 20000 };
    unsigned char **ptrs = malloc(COUNT * sizeof(*ptrs));
    assert_non_null(ptrs);
    size_t expect_used = 0;
    for (int i = 0; i < COUNT; i++) {
        size_t size = (size_t)(i % 97) + 1;
        ptrs[i] = mb_arena_alloc(a, size);
        assert_non_null(ptrs[i]);
        assert_int_equal((uintptr_t)ptrs[i] % 16, 0);
        for (size_t k = 0; k < size; k++)
            assert_int_equal(ptrs[i][k], 0); /* zero-filled */
        memset(ptrs[i], i & 0xff, size);
        expect_used += (size + 15) / 16 * 16;
    }
    assert_int_equal(mb_arena_used(a), expect_used);
    /* No allocation overlapped another. */
    for (int i = 0; i < COUNT; i++) {
        size_t size = (size_t)(i % 97) + 1;
        for (size_t k = 0; k < size; k++)
            if (ptrs[i][k] != (unsigned char)(i & 0xff))
                fail_msg("allocation %d was overwritten", i);
    }
    free(ptrs);
    mb_arena_free(a);
    mb_arena_free(NULL);
}

static void test_arena_large_and_strings(void **state)
{
    (void)state;
    mb_arena *a = mb_arena_new();
    char *small = mb_arena_alloc(a, 10);
    memcpy(small, "before", 7);
    /* Larger than a chunk: its own block; the current chunk stays usable. */
    size_t big = 3u << 20;
    unsigned char *p = mb_arena_alloc(a, big);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 16, 0);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[big - 1], 0);
    memset(p, 0x5a, big);
    char *after = mb_arena_alloc(a, 10);
    assert_non_null(after);
    memcpy(after, "after", 6);
    assert_string_equal(small, "before");
    assert_int_equal(p[big - 1], 0x5a);
    assert_int_equal(mb_arena_used(a), 16 + big + 16);

    char *s = mb_arena_strdup(a, "hello, arena");
    assert_string_equal(s, "hello, arena");
    char *t = mb_arena_strndup(a, "abcdef", 3);
    assert_string_equal(t, "abc");
    char *e = mb_arena_strdup(a, "");
    assert_non_null(e);
    assert_string_equal(e, "");
    /* A zero-byte allocation still returns a pointer. */
    assert_non_null(mb_arena_alloc(a, 0));
    /* A size whose rounding would wrap around fails instead. */
    assert_null(mb_arena_alloc(a, SIZE_MAX - 4));
    assert_string_equal(s, "hello, arena");
    mb_arena_free(a);
}

/* -------------------------------------------------------------- buffer */

static void test_buf(void **state)
{
    (void)state;
    mb_buf b = MB_BUF_INIT;
    assert_null(b.data);
    mb_buf_append(&b, "abc", 3);
    mb_buf_putc(&b, '-');
    mb_buf_puts(&b, "def");
    mb_buf_append(&b, "xyz", 0);
    assert_int_equal(b.len, 7);
    assert_string_equal(b.data, "abc-def");
    mb_buf_printf(&b, " %d+%s=%.1f", 2, "two", 4.0);
    assert_string_equal(b.data, "abc-def 2+two=4.0");
    assert_int_equal(b.len, strlen("abc-def 2+two=4.0"));

    /* printf growth far past the initial capacity. */
    mb_buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    char *chunk = malloc(70001);
    memset(chunk, 'q', 70000);
    chunk[70000] = '\0';
    for (int i = 0; i < 5; i++)
        mb_buf_printf(&b, "%s%d", chunk, i);
    assert_int_equal(b.len, 5 * 70001);
    assert_true(b.cap > b.len);
    assert_int_equal(b.data[b.len], '\0');
    assert_int_equal(b.data[70000], '0');
    assert_int_equal(b.data[5 * 70001 - 1], '4');
    assert_int_equal(b.failed, 0);
    free(chunk);

    /* Embedded NUL bytes are kept by append. */
    mb_buf_reset(&b);
    mb_buf_append(&b, "a\0b", 3);
    assert_int_equal(b.len, 3);
    assert_memory_equal(b.data, "a\0b", 4);

    mb_buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.cap, 0);

    /* An empty printf still yields a terminated string. */
    mb_buf e = MB_BUF_INIT;
    mb_buf_printf(&e, "%s", "");
    assert_non_null(e.data);
    assert_string_equal(e.data, "");
    mb_buf_free(&e);

    /* A failed buffer ignores later appends. */
    mb_buf f = MB_BUF_INIT;
    mb_buf_puts(&f, "ok");
    mb_buf_append(&f, "x", SIZE_MAX - 1);
    assert_int_equal(f.failed, 1);
    mb_buf_puts(&f, "more");
    assert_string_equal(f.data, "ok");
    mb_buf_free(&f);
}

/* -------------------------------------------------------------- strmap */

static void test_strmap(void **state)
{
    (void)state;
    mb_strmap *m = mb_strmap_new();
    assert_non_null(m);
    assert_int_equal(mb_strmap_count(m), 0);
    assert_int_equal(mb_strmap_get(m, "a", 1), -1);

    assert_int_equal(mb_strmap_put(m, "alpha", 5, 1), MB_OK);
    assert_int_equal(mb_strmap_put(m, "beta", 4, 2), MB_OK);
    assert_int_equal(mb_strmap_get(m, "alpha", 5), 1);
    assert_int_equal(mb_strmap_get(m, "beta", 4), 2);
    assert_int_equal(mb_strmap_count(m), 2);
    /* replace keeps the count */
    assert_int_equal(mb_strmap_put(m, "alpha", 5, 10), MB_OK);
    assert_int_equal(mb_strmap_get(m, "alpha", 5), 10);
    assert_int_equal(mb_strmap_count(m), 2);
    /* keys are (pointer, length): prefixes and unterminated keys are distinct */
    assert_int_equal(mb_strmap_get(m, "alph", 4), -1);
    assert_int_equal(mb_strmap_get(m, "alphabet", 8), -1);
    assert_int_equal(mb_strmap_get(m, "alphabet", 5), 10);
    assert_int_equal(mb_strmap_put(m, "a\0b", 3, 7), MB_OK);
    assert_int_equal(mb_strmap_get(m, "a\0b", 3), 7);
    assert_int_equal(mb_strmap_get(m, "a", 1), -1);
    assert_int_equal(mb_strmap_put(m, "", 0, 0), MB_OK);
    assert_int_equal(mb_strmap_get(m, "", 0), 0);
    assert_int_equal(mb_strmap_count(m), 4);
    mb_strmap_free(m);
    mb_strmap_free(NULL);

    /* 10k keys across many rehashes; keys are copied. */
    m = mb_strmap_new();
    char key[32];
    for (int i = 0; i < 10000; i++) {
        int n = snprintf(key, sizeof(key), "%%r%d", i);
        assert_int_equal(mb_strmap_put(m, key, (size_t)n, i * 3), MB_OK);
    }
    memset(key, 0, sizeof(key));
    assert_int_equal(mb_strmap_count(m), 10000);
    for (int i = 0; i < 10000; i++) {
        int n = snprintf(key, sizeof(key), "%%r%d", i);
        if (mb_strmap_get(m, key, (size_t)n) != i * 3)
            fail_msg("key %s lost", key);
    }
    assert_int_equal(mb_strmap_get(m, "%r10000", 7), -1);
    assert_int_equal(mb_strmap_get(m, "%rd1", 4), -1);
    mb_strmap_free(m);
}

static void test_grow(void **state)
{
    (void)state;
    int *arr = NULL;
    size_t cap = 0;
    assert_int_equal(MB_GROW(arr, cap, 0), MB_OK);
    assert_null(arr);
    assert_int_equal(MB_GROW(arr, cap, 1), MB_OK);
    assert_int_equal(cap, 8);
    assert_int_equal(MB_GROW(arr, cap, 9), MB_OK);
    assert_int_equal(cap, 16);
    arr[15] = 15;
    assert_int_equal(MB_GROW(arr, cap, 1000), MB_OK);
    assert_int_equal(cap, 1024);
    assert_int_equal(arr[15], 15);
    /* A size computation that would overflow fails; the array is untouched. */
    assert_int_equal(MB_GROW(arr, cap, SIZE_MAX / 2), MB_ERR_NOMEM);
    assert_int_equal(MB_GROW(arr, cap, SIZE_MAX), MB_ERR_NOMEM);
    assert_int_equal(cap, 1024);
    assert_int_equal(arr[15], 15);
    free(arr);
}

/* --------------------------------------------------------------- files */

static char tmpdir[256];

static int files_setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/mb_test_util_XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    return rmdir(dir);
}

static int files_teardown(void **state)
{
    (void)state;
    remove_tree(tmpdir);
    return 0;
}

static void path_in(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

/* Names in `dir`, sorted, joined with ','. */
static void list_dir(const char *dir, char *out, size_t size)
{
    char names[64][256];
    int n = 0;
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 64) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
    }
    closedir(d);
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
            char t[256];
            memcpy(t, names[j], sizeof(t));
            memcpy(names[j], names[j - 1], sizeof(t));
            memcpy(names[j - 1], t, sizeof(t));
        }
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i)
            strncat(out, ",", size - strlen(out) - 1);
        strncat(out, names[i], size - strlen(out) - 1);
    }
}

static void write_raw(const char *path, const char *data, size_t len)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    fclose(fp);
}

static void test_read_file(void **state)
{
    (void)state;
    char path[512];
    char *data = (char *)&data;
    size_t len = 99;
    mb_error err;
    mb_error_clear(&err);

    /* Missing file: I/O error naming the path. */
    path_in(path, sizeof(path), "missing.txt");
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_ERR_IO);
    assert_null(data);
    assert_int_equal(len, 0);
    assert_int_equal(err.status, MB_ERR_IO);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.msg, "cannot open"));
    char msg[2048];
    mb_error_format(&err, msg, sizeof(msg));
    assert_non_null(strstr(msg, "missing.txt: error: "));

    /* A directory. */
    assert_int_equal(mb_read_file(tmpdir, 1000, &data, &len, &err), MB_ERR_IO);
    assert_null(data);
    assert_string_equal(err.file, tmpdir);
    assert_non_null(strstr(err.msg, "directory"));

    /* Contents, NUL-terminated; binary data kept. */
    path_in(path, sizeof(path), "data.bin");
    write_raw(path, "abc\0def\n", 8);
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_OK);
    assert_int_equal(len, 8);
    assert_memory_equal(data, "abc\0def\n", 9);
    free(data);

    /* Exactly at the limit is fine; one byte over is MB_ERR_LIMIT. */
    assert_int_equal(mb_read_file(path, 8, &data, &len, &err), MB_OK);
    free(data);
    assert_int_equal(mb_read_file(path, 7, &data, &len, &err), MB_ERR_LIMIT);
    assert_null(data);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.msg, "limit of 7 bytes"));

    /* A file larger than one read chunk, limit in the middle of it. */
    path_in(path, sizeof(path), "big.bin");
    size_t big = 200000;
    char *content = malloc(big);
    for (size_t i = 0; i < big; i++)
        content[i] = (char)('a' + i % 26);
    write_raw(path, content, big);
    assert_int_equal(mb_read_file(path, big, &data, &len, &err), MB_OK);
    assert_int_equal(len, big);
    assert_memory_equal(data, content, big);
    assert_int_equal(data[big], '\0');
    free(data);
    assert_int_equal(mb_read_file(path, 100000, &data, &len, &err), MB_ERR_LIMIT);
    free(content);

    /* An empty file. */
    path_in(path, sizeof(path), "empty.txt");
    write_raw(path, "", 0);
    assert_int_equal(mb_read_file(path, 10, &data, &len, &err), MB_OK);
    assert_int_equal(len, 0);
    assert_non_null(data);
    assert_string_equal(data, "");
    free(data);
}

static void test_atomic_commit_and_abort(void **state)
{
    (void)state;
    char sub[512], path[600], listing[4096];
    path_in(sub, sizeof(sub), "atomic");
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof(path), "%s/out.txt", sub);
    mb_error err;
    mb_error_clear(&err);

    /* Nothing appears at the path before the commit. */
    mb_atomic_file af;
    assert_int_equal(mb_atomic_open(&af, path, &err), MB_OK);
    assert_non_null(af.fp);
    fputs("first version\n", af.fp);
    assert_int_not_equal(access(path, F_OK), 0);
    list_dir(sub, listing, sizeof(listing));
    assert_non_null(strstr(listing, "out.txt.tmp")); /* the temporary, same directory */
    assert_int_equal(mb_atomic_commit(&af, &err), MB_OK);
    list_dir(sub, listing, sizeof(listing));
    assert_string_equal(listing, "out.txt");
    char *data;
    size_t len;
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_OK);
    assert_string_equal(data, "first version\n");
    free(data);
    mb_atomic_abort(&af); /* safe after a commit: the file stays */
    assert_int_equal(access(path, F_OK), 0);

    /* Abort: the old file is untouched and no temporary is left. */
    assert_int_equal(mb_atomic_open(&af, path, &err), MB_OK);
    fputs("half-written", af.fp);
    mb_atomic_abort(&af);
    assert_null(af.fp);
    assert_null(af.tmp_path);
    list_dir(sub, listing, sizeof(listing));
    assert_string_equal(listing, "out.txt");
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_OK);
    assert_string_equal(data, "first version\n");
    free(data);

    /* Abort of a new file leaves nothing at all. */
    char other[600];
    snprintf(other, sizeof(other), "%s/never.txt", sub);
    assert_int_equal(mb_atomic_open(&af, other, &err), MB_OK);
    fputs("x", af.fp);
    mb_atomic_abort(&af);
    list_dir(sub, listing, sizeof(listing));
    assert_string_equal(listing, "out.txt");

    /* mb_write_file_atomic replaces the contents. */
    assert_int_equal(mb_write_file_atomic(path, "second\0bin", 10, &err), MB_OK);
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_OK);
    assert_int_equal(len, 10);
    assert_memory_equal(data, "second\0bin", 10);
    free(data);
    assert_int_equal(mb_write_file_atomic(path, NULL, 0, &err), MB_OK);
    assert_int_equal(mb_read_file(path, 1000, &data, &len, &err), MB_OK);
    assert_int_equal(len, 0);
    free(data);
    list_dir(sub, listing, sizeof(listing));
    assert_string_equal(listing, "out.txt");
}

static void test_atomic_failures_leave_nothing(void **state)
{
    (void)state;
    char path[600], listing[4096];
    mb_error err;
    mb_error_clear(&err);

    /* A directory that does not exist: an error naming the path, nothing created. */
    snprintf(path, sizeof(path), "%s/no_such_dir/out.txt", tmpdir);
    assert_int_equal(mb_write_file_atomic(path, "abc", 3, &err), MB_ERR_IO);
    assert_int_equal(err.status, MB_ERR_IO);
    assert_string_equal(err.file, path);
    assert_non_null(strstr(err.msg, "cannot create"));
    char parent[600];
    snprintf(parent, sizeof(parent), "%s/no_such_dir", tmpdir);
    assert_int_not_equal(access(parent, F_OK), 0);

    mb_atomic_file af;
    assert_int_equal(mb_atomic_open(&af, path, &err), MB_ERR_IO);
    assert_null(af.fp);
    assert_null(af.path);
    assert_null(af.tmp_path);
    mb_atomic_abort(&af); /* safe after a failed open */

    /* The rename fails (the path is a non-empty directory): the temporary
     * is removed and the directory is untouched. */
    char sub[512];
    path_in(sub, sizeof(sub), "rename_fail");
    assert_int_equal(mkdir(sub, 0700), 0);
    char target[600], inner[700];
    snprintf(target, sizeof(target), "%s/target", sub);
    assert_int_equal(mkdir(target, 0700), 0);
    snprintf(inner, sizeof(inner), "%s/keep.txt", target);
    write_raw(inner, "keep", 4);
    assert_int_equal(mb_write_file_atomic(target, "abc", 3, &err), MB_ERR_IO);
    assert_string_equal(err.file, target);
    assert_non_null(strstr(err.msg, "cannot rename"));
    list_dir(sub, listing, sizeof(listing));
    assert_string_equal(listing, "target");
    list_dir(target, listing, sizeof(listing));
    assert_string_equal(listing, "keep.txt");

    /* Committing something that was never opened is an error, not a crash. */
    mb_atomic_file closed;
    memset(&closed, 0, sizeof(closed));
    assert_int_equal(mb_atomic_commit(&closed, &err), MB_ERR_IO);
}

int main(void)
{
    const struct CMUnitTest core[] = {
        cmocka_unit_test(test_error_format),
        cmocka_unit_test(test_arena_many_allocs),
        cmocka_unit_test(test_arena_large_and_strings),
        cmocka_unit_test(test_buf),
        cmocka_unit_test(test_strmap),
        cmocka_unit_test(test_grow),
    };
    const struct CMUnitTest files[] = {
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_atomic_commit_and_abort),
        cmocka_unit_test(test_atomic_failures_leave_nothing),
    };
    int failed = cmocka_run_group_tests_name("util core", core, NULL, NULL);
    failed += cmocka_run_group_tests_name("util files", files, files_setup, files_teardown);
    return failed;
}
