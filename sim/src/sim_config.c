/* Simulator configs: defaults, GPGPU-Sim `-option value` files, presets,
 * and the structured values (cache geometries, DRAM timing, clocks). */
#define _POSIX_C_SOURCE 200809L
#include "sim_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sim_presets.c (generated from sim/configs/ at build time) */
typedef struct sim_preset {
    const char *name;
    const char *text;
} sim_preset;
extern const sim_preset sim_presets[];

typedef enum { KIND_INT_OPT, KIND_REAL_OPT, KIND_STR_OPT } opt_kind;
typedef struct opt_row {
    const char *name;
    opt_kind kind;
    size_t offset;
    const char *def;
    const char *help;
} opt_row;

#define KIND_INT KIND_INT_OPT
#define KIND_REAL KIND_REAL_OPT
#define KIND_STR KIND_STR_OPT
static const opt_row options[] = {
#define SIM_OPT(name, kind, field, def, help) {name, KIND_##kind, offsetof(mb_sim_config, field), def, help},
#include "sim_options.def"
#undef SIM_OPT
};
#undef KIND_INT
#undef KIND_REAL
#undef KIND_STR
enum { NOPTIONS = sizeof(options) / sizeof(options[0]) };

static const opt_row *find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strlen(options[i].name) == len && memcmp(options[i].name, name, len) == 0)
            return &options[i];
    return NULL;
}

static mb_status set_value(mb_sim_config *cfg, const opt_row *o, const char *value,
                           const char *file, int line, mb_error *err)
{
    char *field = (char *)cfg + o->offset;
    if (o->kind == KIND_STR_OPT) {
        if (strlen(value) >= SIM_STR_MAX)
            return mb_error_set(err, MB_ERR_PARSE, file, line, 0,
                                "value of -%s is longer than %d characters", o->name, SIM_STR_MAX - 1);
        strcpy(field, value);
        return MB_OK;
    }
    char *end = NULL;
    errno = 0;
    if (o->kind == KIND_INT_OPT) {
        long long v = strtoll(value, &end, 0);
        if (errno || end == value || *end || v < 0)
            return mb_error_set(err, MB_ERR_PARSE, file, line, 0,
                                "-%s expects a non-negative integer, got '%s'", o->name, value);
        memcpy(field, &(int64_t){v}, sizeof(int64_t));
    } else {
        double v = strtod(value, &end);
        if (errno || end == value || *end)
            return mb_error_set(err, MB_ERR_PARSE, file, line, 0, "-%s expects a number, got '%s'",
                                o->name, value);
        memcpy(field, &v, sizeof(double));
    }
    return MB_OK;
}

mb_status mb_sim_config_new(mb_sim_config **out, mb_error *err)
{
    mb_sim_config *cfg = calloc(1, sizeof(*cfg));
    if (!cfg)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    for (size_t i = 0; i < NOPTIONS; i++) {
        mb_status st = set_value(cfg, &options[i], options[i].def, "defaults", 0, err);
        if (st != MB_OK) {
            free(cfg);
            return st;
        }
    }
    *out = cfg;
    return MB_OK;
}

void mb_sim_config_free(mb_sim_config *cfg)
{
    free(cfg);
}

mb_status mb_sim_config_set(mb_sim_config *cfg, const char *option, const char *value,
                            const char *where, mb_error *err)
{
    const char *name = option[0] == '-' ? option + 1 : option;
    const opt_row *o = find_option(name, strlen(name));
    if (!o)
        return mb_error_set(err, MB_ERR_INVALID, where, 0, 0, "unknown simulator option -%s", name);
    return set_value(cfg, o, value, where, 0, err);
}

/* Splits one config line into option and value; returns 0 for blank lines. */
static int split_line(char *line, char **name, char **value)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = 0;
    char *p = line;
    while (isspace((unsigned char)*p))
        p++;
    if (!*p)
        return 0;
    *name = p;
    while (*p && !isspace((unsigned char)*p))
        p++;
    if (*p)
        *p++ = 0;
    while (isspace((unsigned char)*p))
        p++;
    char *end = p + strlen(p);
    while (end > p && isspace((unsigned char)end[-1]))
        *--end = 0;
    if (end - p >= 2 && ((*p == '"' && end[-1] == '"') || (*p == '\'' && end[-1] == '\''))) {
        end[-1] = 0;
        p++;
    }
    *value = p;
    return 1;
}

mb_status mb_sim_config_parse(mb_sim_config *cfg, const char *text, size_t len, const char *name,
                              mb_buf *warnings, mb_error *err)
{
    mb_strmap *warned = mb_strmap_new();
    if (!warned)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    mb_status st = MB_OK;
    size_t pos = 0;
    int lineno = 0;
    while (pos < len && st == MB_OK) {
        size_t end = pos;
        while (end < len && text[end] != '\n')
            end++;
        lineno++;
        size_t n = end - pos;
        char *line = malloc(n + 1);
        if (!line) {
            st = mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
            break;
        }
        memcpy(line, text + pos, n);
        line[n] = 0;
        pos = end + 1;
        if (memchr(line, 0, n)) {
            st = mb_error_set(err, MB_ERR_PARSE, name, lineno, 0, "NUL byte in config line");
            free(line);
            break;
        }
        char *opt, *value;
        if (split_line(line, &opt, &value)) {
            if (opt[0] != '-' || !opt[1]) {
                st = mb_error_set(err, MB_ERR_PARSE, name, lineno, 1,
                                  "expected '-option value', got '%s'", opt);
            } else {
                const opt_row *o = find_option(opt + 1, strlen(opt + 1));
                if (!o) {
                    if (mb_strmap_get(warned, opt + 1, strlen(opt + 1)) < 0) {
                        mb_strmap_put(warned, opt + 1, strlen(opt + 1), 1);
                        if (warnings)
                            mb_buf_printf(warnings,
                                          "%s:%d: warning: option %s is not modelled by the "
                                          "simulator; ignored\n",
                                          name, lineno, opt);
                    }
                } else if (!*value) {
                    st = mb_error_set(err, MB_ERR_PARSE, name, lineno, 0, "%s has no value", opt);
                } else {
                    st = set_value(cfg, o, value, name, lineno, err);
                    if (st == MB_OK) {
                        /* structured values are checked where they are written */
                        sim_derived d;
                        st = sim_config_derive(cfg, &d, name, err);
                        if (st != MB_OK)
                            err->line = lineno;
                    }
                }
            }
        }
        free(line);
    }
    mb_strmap_free(warned);
    if (st == MB_OK) {
        sim_derived d;
        st = sim_config_derive(cfg, &d, name, err);
    }
    return st;
}

const char *const *mb_sim_preset_names(void)
{
    static const char *names[32];
    /* filled from the constant table; identical on every call */
    size_t i = 0;
    for (; sim_presets[i].name && i + 1 < sizeof(names) / sizeof(names[0]); i++)
        names[i] = sim_presets[i].name;
    names[i] = NULL;
    return names;
}

const char *mb_sim_preset_text(const char *name)
{
    for (size_t i = 0; sim_presets[i].name; i++)
        if (strcmp(sim_presets[i].name, name) == 0)
            return sim_presets[i].text;
    return NULL;
}

mb_status mb_sim_config_load(mb_sim_config *cfg, const char *name_or_path, mb_buf *warnings,
                             mb_error *err)
{
    const char *text = mb_sim_preset_text(name_or_path);
    if (text) {
        char where[300];
        snprintf(where, sizeof(where), "sim/configs/%s.config", name_or_path);
        return mb_sim_config_parse(cfg, text, strlen(text), where, warnings, err);
    }
    char *data = NULL;
    size_t len = 0;
    mb_status st = mb_read_file(name_or_path, 1 << 20, &data, &len, err);
    if (st != MB_OK) {
        if (st == MB_ERR_IO && !strchr(name_or_path, '/') && !strchr(name_or_path, '.')) {
            mb_buf names = {0};
            for (const char *const *n = mb_sim_preset_names(); *n; n++)
                mb_buf_printf(&names, "%s%s", names.len ? ", " : "", *n);
            st = mb_error_set(err, MB_ERR_INVALID, name_or_path, 0, 0,
                              "no preset or config file named '%s' (presets: %s)", name_or_path,
                              names.data ? names.data : "");
            mb_buf_free(&names);
        }
        return st;
    }
    st = mb_sim_config_parse(cfg, data, len, name_or_path, warnings, err);
    free(data);
    return st;
}

void mb_sim_config_write(const mb_sim_config *cfg, mb_buf *out)
{
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt_row *o = &options[i];
        const char *field = (const char *)cfg + o->offset;
        if (o->kind == KIND_STR_OPT) {
            mb_buf_printf(out, "-%s %s\n", o->name, field);
        } else if (o->kind == KIND_INT_OPT) {
            int64_t v;
            memcpy(&v, field, sizeof(v));
            mb_buf_printf(out, "-%s %lld\n", o->name, (long long)v);
        } else {
            double v;
            memcpy(&v, field, sizeof(v));
            mb_buf_printf(out, "-%s %g\n", o->name, v);
        }
    }
}

void mb_sim_options_describe(mb_buf *out)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        mb_buf_printf(out, "  -%-36s %s\n  %-37s (default: %s)\n", options[i].name,
                      options[i].help, "", options[i].def);
}

/* ---------------------------------------------------- structured values */

static mb_status parse_list(const char *text, uint32_t *out, unsigned n, const char *opt,
                            const char *where, mb_error *err)
{
    const char *p = text;
    for (unsigned i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v > 100000)
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "-%s expects %u comma-separated cycle counts, got '%s'", opt, n, text);
        out[i] = (uint32_t)v;
        p = end;
        if (i + 1 < n) {
            if (*p != ',')
                return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                    "-%s expects %u comma-separated cycle counts, got '%s'", opt, n,
                                    text);
            p++;
        }
    }
    if (*p)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-%s expects %u comma-separated cycle counts, got '%s'", opt, n, text);
    return MB_OK;
}

static int is_pow2(uint64_t v)
{
    return v && !(v & (v - 1));
}

/* GPGPU-Sim's cache string: [N|S:]sets:line:assoc,rep:wr:alloc:wralloc[:idx],mshr:entries:merge,missq[...] */
static mb_status parse_cache(const char *text, sim_cache_geom *g, const char *opt, const char *where,
                             mb_error *err)
{
    memset(g, 0, sizeof(*g));
    if (strcmp(text, "none") == 0)
        return MB_OK;
    char buf[SIM_STR_MAX];
    snprintf(buf, sizeof(buf), "%s", text);
    char *p = buf;
    if ((p[0] == 'N' || p[0] == 'S') && p[1] == ':') {
        g->sectored = p[0] == 'S';
        p += 2;
    }
    unsigned sets = 0, line = 0, assoc = 0, mshr_n = 0, merge = 0, missq = 0;
    char rep = 0, wr = 0, alloc = 0, walloc = 0, mshr_kind = 0;
    int used = 0;
    if (sscanf(p, "%u:%u:%u,%c:%c:%c:%c%n", &sets, &line, &assoc, &rep, &wr, &alloc, &walloc, &used) < 7)
        goto bad;
    p += used;
    if (*p == ':') { /* set index function: accepted, the simulator uses its own hash */
        p++;
        if (!*p)
            goto bad;
        p++;
    }
    used = 0;
    if (sscanf(p, ",%c:%u:%u,%u%n", &mshr_kind, &mshr_n, &merge, &missq, &used) < 4)
        goto bad;
    if (!strchr("LF", rep) || !strchr("TBRLW", wr) || !strchr("mfsMFS", alloc) || !strchr("NWFL", walloc) ||
        !strchr("AS", mshr_kind))
        goto bad;
    if (!sets || !is_pow2(line) || line < 32 || line > 1024 || !assoc || assoc > 64 ||
        sets > (1u << 20) || !mshr_n || mshr_n > 4096 || !merge || !missq || missq > 4096)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-%s '%s': sets must be 1 to 2^20, line a power of two from 32 to "
                            "1024 bytes, associativity 1 to 64, MSHR entries, merges and miss queue "
                            "positive",
                            opt, text);
    if (g->sectored && line / 32 > 8)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-%s '%s': a sectored cache line holds at most 8 sectors of 32 bytes",
                            opt, text);
    g->present = 1;
    g->sets = sets;
    g->line = line;
    g->assoc = assoc;
    g->rep = rep;
    g->write = wr;
    g->alloc = (char)tolower((unsigned char)alloc);
    g->write_alloc = walloc;
    g->mshr_entries = mshr_n;
    g->mshr_merge = merge;
    g->miss_queue = missq;
    return MB_OK;
bad:
    return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                        "-%s '%s' is not a cache description "
                        "([N|S:]sets:line:assoc,rep:wr:alloc:wralloc,mshr:entries:merge,missq, or "
                        "none)",
                        opt, text);
}

static mb_status parse_timing(const char *text, sim_derived *d, const char *where, mb_error *err)
{
    struct {
        const char *key;
        uint32_t *dst;
    } keys[] = {{"nbk", &d->nbk},   {"CCD", &d->tCCD}, {"RRD", &d->tRRD}, {"RCD", &d->tRCD},
                {"RAS", &d->tRAS},  {"RP", &d->tRP},   {"RC", &d->tRC},   {"CL", &d->tCL},
                {"WL", &d->tWL},    {"CDLR", &d->tCDLR}, {"WR", &d->tWR}};
    char buf[SIM_STR_MAX];
    snprintf(buf, sizeof(buf), "%s", text);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ":", &save); tok; tok = strtok_r(NULL, ":", &save)) {
        while (isspace((unsigned char)*tok)) /* GPGPU-Sim's own files have "RC=40: CL=12" */
            tok++;
        char *tail = tok + strlen(tok);
        while (tail > tok && isspace((unsigned char)tail[-1]))
            *--tail = 0;
        if (!*tok)
            continue;
        char *eq = strchr(tok, '=');
        char *end;
        if (!eq)
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "-gpgpu_dram_timing_opt: '%s' is not KEY=cycles", tok);
        *eq = 0;
        long v = strtol(eq + 1, &end, 10);
        if (end == eq + 1 || *end || v < 0 || v > 10000)
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "-gpgpu_dram_timing_opt: %s=%s is not a cycle count", tok, eq + 1);
        for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
            if (strcmp(keys[i].key, tok) == 0)
                *keys[i].dst = (uint32_t)v;
        /* other GPGPU-Sim keys (nbkgrp, CCDL, RTPL) are accepted and not modelled */
    }
    if (!d->nbk || d->nbk > 64)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_dram_timing_opt: nbk (banks) must be 1 to 64");
    if (!d->tCL || !d->tRCD || !d->tRP)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_dram_timing_opt: CL, RCD and RP must be at least 1 cycle");
    return MB_OK;
}

mb_status sim_config_derive(const mb_sim_config *c, sim_derived *d, const char *where, mb_error *err)
{
    memset(d, 0, sizeof(*d));
    unsigned threads = 0, warp = 0;
    int used = 0;
    if (sscanf(c->core_pipeline, "%u:%u%n", &threads, &warp, &used) != 2 || c->core_pipeline[used])
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_shader_core_pipeline expects THREADS:WARP_SIZE, got '%s'",
                            c->core_pipeline);
    if (warp != 32)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_shader_core_pipeline: warp size %u is not supported (PTX warps "
                            "are 32 threads)",
                            warp);
    if (threads < 32 || threads > 8192)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_shader_core_pipeline: %u threads per SM is out of range (32 to "
                            "8192)",
                            threads);
    d->max_threads = threads;
    d->warp_size = warp;
    struct {
        const char *name;
        int64_t v, lo, hi;
    } ranges[] = {{"gpgpu_n_clusters", c->n_clusters, 1, 1024},
                  {"gpgpu_n_cores_per_cluster", c->cores_per_cluster, 1, 64},
                  {"gpgpu_shader_cta", c->max_ctas, 1, 64},
                  {"gpgpu_shader_registers", c->registers, 1024, 1 << 22},
                  {"gpgpu_shmem_size", c->shmem_size, 0, 1 << 24},
                  {"mb_regs_per_thread", c->regs_per_thread, 0, 255},
                  {"gpgpu_num_sched_per_core", c->sched_per_core, 1, 16},
                  {"gpgpu_max_insn_issue_per_warp", c->issue_per_warp, 1, 4},
                  {"mb_simd_width", c->simd_width, 1, 32},
                  {"gpgpu_num_sp_units", c->num_sp, 1, 64},
                  {"gpgpu_num_sfu_units", c->num_sfu, 1, 64},
                  {"gpgpu_num_dp_units", c->num_dp, 0, 64},
                  {"gpgpu_num_int_units", c->num_int, 0, 64},
                  {"gpgpu_num_mem_units", c->num_mem, 1, 64},
                  {"ptx_opcode_latency_sfu", c->lat_sfu, 1, 100000},
                  {"ptx_opcode_initiation_sfu", c->ii_sfu, 1, 100000},
                  {"gpgpu_shmem_num_banks", c->shmem_banks, 1, 128},
                  {"gpgpu_shmem_warp_parts", c->shmem_warp_parts, 1, 4},
                  {"smem_latency", c->smem_latency, 1, 100000},
                  {"gpgpu_l1_latency", c->l1_latency, 1, 100000},
                  {"icnt_flit_size", c->flit_size, 1, 4096},
                  {"mb_icnt_latency", c->icnt_latency, 0, 100000},
                  {"gpgpu_n_mem", c->n_mem, 1, 1024},
                  {"gpgpu_n_sub_partition_per_mchannel", c->n_sub, 1, 8},
                  {"gpgpu_l2_rop_latency", c->l2_latency, 1, 100000},
                  {"gpgpu_n_mem_per_ctrlr", c->mem_per_ctrlr, 1, 64},
                  {"gpgpu_dram_buswidth", c->dram_buswidth, 1, 1024},
                  {"gpgpu_dram_burst_length", c->dram_burst, 1, 64},
                  {"dram_data_command_freq_ratio", c->dram_ratio, 1, 16},
                  {"gpgpu_dram_scheduler", c->dram_scheduler, 0, 1},
                  {"gpgpu_frfcfs_dram_sched_queue_size", c->dram_queue, 1, 4096},
                  {"mb_dram_row_bytes", c->dram_row_bytes, 256, 1 << 20},
                  {"mb_dram_latency", c->dram_latency, 0, 100000}};
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++)
        if (ranges[i].v < ranges[i].lo || ranges[i].v > ranges[i].hi)
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0, "-%s %lld is out of range (%lld to %lld)",
                                ranges[i].name, (long long)ranges[i].v, (long long)ranges[i].lo,
                                (long long)ranges[i].hi);
    if (c->n_clusters * c->cores_per_cluster > 4096)
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0, "more than 4096 SMs");
    if (!is_pow2((uint64_t)c->dram_row_bytes))
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0, "-mb_dram_row_bytes must be a power of two");
    if (strcmp(c->scheduler, "lrr") == 0) {
        d->sched_kind = SCHED_LRR;
    } else if (strcmp(c->scheduler, "gto") == 0) {
        d->sched_kind = SCHED_GTO;
    } else if (strncmp(c->scheduler, "two_level_active:", 17) == 0) {
        char *end;
        long n = strtol(c->scheduler + 17, &end, 10);
        if (end == c->scheduler + 17 || n < 1 || n > 64 || (*end && *end != ':'))
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "-gpgpu_scheduler two_level_active:N needs N from 1 to 64, got '%s'",
                                c->scheduler);
        d->sched_kind = SCHED_TWO_LEVEL;
        d->two_level_active = (uint32_t)n;
    } else {
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_scheduler '%s' is not lrr, gto or two_level_active:N",
                            c->scheduler);
    }
    mb_status st;
    if ((st = parse_list(c->lat_int, d->lat_int, 6, "ptx_opcode_latency_int", where, err)) ||
        (st = parse_list(c->ii_int, d->ii_int, 6, "ptx_opcode_initiation_int", where, err)) ||
        (st = parse_list(c->lat_fp, d->lat_fp, 5, "ptx_opcode_latency_fp", where, err)) ||
        (st = parse_list(c->ii_fp, d->ii_fp, 5, "ptx_opcode_initiation_fp", where, err)) ||
        (st = parse_list(c->lat_dp, d->lat_dp, 5, "ptx_opcode_latency_dp", where, err)) ||
        (st = parse_list(c->ii_dp, d->ii_dp, 5, "ptx_opcode_initiation_dp", where, err)))
        return st;
    d->lat_fp[LAT_SHFL] = d->lat_int[LAT_SHFL];
    d->ii_fp[LAT_SHFL] = d->ii_int[LAT_SHFL];
    d->lat_dp[LAT_SHFL] = d->lat_int[LAT_SHFL];
    d->ii_dp[LAT_SHFL] = d->ii_int[LAT_SHFL];
    for (int i = 0; i < LAT_N; i++)
        if (!d->lat_int[i] || !d->ii_int[i] || !d->lat_fp[i] || !d->ii_fp[i] || !d->lat_dp[i] ||
            !d->ii_dp[i])
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "latencies and initiation intervals must be at least 1 cycle");
    if ((st = parse_cache(c->dl1, &d->dl1, "gpgpu_cache:dl1", where, err)) ||
        (st = parse_cache(c->cl1, &d->cl1, "gpgpu_const_cache:l1", where, err)) ||
        (st = parse_cache(c->dl2, &d->dl2, "gpgpu_cache:dl2", where, err)) ||
        (st = parse_timing(c->dram_timing, d, where, err)))
        return st;
    double mhz[4];
    used = 0;
    if (sscanf(c->clocks, "%lf:%lf:%lf:%lf%n", &mhz[0], &mhz[1], &mhz[2], &mhz[3], &used) != 4 ||
        c->clocks[used])
        return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                            "-gpgpu_clock_domains expects CORE:ICNT:L2:DRAM in MHz, got '%s'",
                            c->clocks);
    for (int i = 0; i < 4; i++)
        if (!(mhz[i] >= 1.0 && mhz[i] <= 100000.0))
            return mb_error_set(err, MB_ERR_PARSE, where, 0, 0,
                                "-gpgpu_clock_domains: clocks must be 1 to 100000 MHz, got '%s'",
                                c->clocks);
    d->core_mhz = mhz[0];
    d->icnt_mhz = mhz[1];
    d->l2_mhz = mhz[2];
    d->dram_mhz = mhz[3];
    return MB_OK;
}
