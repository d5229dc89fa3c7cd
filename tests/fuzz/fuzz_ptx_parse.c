/* libFuzzer target for the PTX front end: any input must parse or fail
 * cleanly, and whatever parses must print to text that re-parses and
 * prints identically. */
#include <minibench/profiler.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    mb_error err;
    mb_module *m = NULL;
    if (mb_ptx_parse((const char *)data, size, "fuzz.ptx", &m, &err) != MB_OK) {
        if (err.msg[0] == '\0')
            abort(); /* every failure must say why */
        return 0;
    }
    mb_buf first = MB_BUF_INIT, second = MB_BUF_INIT;
    if (mb_ptx_print(m, &first, &err) != MB_OK)
        abort();
    mb_module *again = NULL;
    if (mb_ptx_parse(first.data, first.len, "printed.ptx", &again, &err) != MB_OK)
        abort(); /* printed PTX must parse */
    if (mb_ptx_print(again, &second, &err) != MB_OK)
        abort();
    if (first.len != second.len || memcmp(first.data, second.data, first.len) != 0)
        abort(); /* printing must be a fixpoint */
    for (uint32_t i = 0; i < m->nfuncs; i++) {
        if (!m->funcs[i].has_body)
            continue;
        mb_cfg cfg;
        if (mb_cfg_build(&m->funcs[i], &cfg, &err) == MB_OK)
            mb_cfg_free(&cfg);
    }
    mb_buf_free(&first);
    mb_buf_free(&second);
    mb_module_free(again);
    mb_module_free(m);
    return 0;
}
