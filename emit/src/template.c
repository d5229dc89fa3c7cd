/* Template placeholders (@@NAME@@) filled through PCRE2. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <minibench/emit.h>

#include <pcre2.h>
#include <string.h>

typedef struct mb_embedded_template {
    const char *name;
    const char *text;
    size_t len;
} mb_embedded_template;
extern const mb_embedded_template mb_embedded_templates[];

const char *mb_template_text(const char *name, size_t *len)
{
    for (const mb_embedded_template *t = mb_embedded_templates; t->name; t++)
        if (strcmp(t->name, name) == 0) {
            if (len)
                *len = t->len;
            return t->text;
        }
    return NULL;
}

static int line_of(const char *text, size_t at)
{
    int line = 1;
    for (size_t i = 0; i < at; i++)
        line += text[i] == '\n';
    return line;
}

mb_status mb_template_fill(const char *name, const char *tpl, size_t len, const char *const *keys,
                           const char *const *values, size_t n, mb_buf *out, mb_error *err)
{
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR) "@@([A-Z][A-Z0-9_]*)@@", PCRE2_ZERO_TERMINATED, 0,
                                   &errcode, &erroff, NULL);
    pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    if (!re || !md) {
        pcre2_match_data_free(md);
        pcre2_code_free(re);
        return mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "cannot compile the placeholder pattern");
    }
    size_t pos = 0;
    mb_status st = MB_OK;
    while (pos <= len) {
        int rc = pcre2_match(re, (PCRE2_SPTR)tpl, len, pos, 0, md, NULL);
        if (rc < 0)
            break;
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        mb_buf_append(out, tpl + pos, ov[0] - pos);
        const char *key = tpl + ov[2];
        size_t klen = ov[3] - ov[2];
        size_t i = 0;
        while (i < n && !(strlen(keys[i]) == klen && memcmp(keys[i], key, klen) == 0))
            i++;
        if (i == n) {
            st = mb_error_set(err, MB_ERR_INVALID, name, line_of(tpl, ov[0]), 0,
                              "placeholder @@%.*s@@ has no value", (int)klen, key);
            break;
        }
        mb_buf_puts(out, values[i]);
        pos = ov[1];
    }
    if (st == MB_OK && pos < len)
        mb_buf_append(out, tpl + pos, len - pos);
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    if (st == MB_OK && out->failed)
        st = mb_error_set(err, MB_ERR_NOMEM, name, 0, 0, "out of memory");
    return st;
}
