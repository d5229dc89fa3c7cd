/*
 * Fat binaries as nvcc 13 embeds them (layout learned from the files nvcc
 * writes; docs/formats.md): a wrapper {magic, version, data, ...} points at a
 * fat binary header {u32 magic, u16 version, u16 header size, u64 size of
 * the entries}, followed by entries, each a header {u16 kind, u16 version,
 * u32 header size, u64 padded payload size, u32 compressed size, ...,
 * u32 sm at +0x1c, u64 flags at +0x28, u64 uncompressed size at +0x38}
 * and its payload. PTX payloads are compressed with LZ4 (block format) or
 * zstd (frame format) depending on the flags.
 */
#include <minibench/cudart.h>

#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

enum {
    FATBIN_HEADER_BYTES = 16,
    ENTRY_MIN_HEADER = 0x40,
    ENTRY_COMPRESSED_SIZE = 0x10,
    ENTRY_SM = 0x1c,
    ENTRY_FLAGS = 0x28,
    ENTRY_UNCOMPRESSED_SIZE = 0x38
};
/* Largest PTX text accepted from one entry (the PTX front end's own limit). */
#define MAX_PTX_BYTES ((uint64_t)MB_PTX_MAX_FILE_BYTES)

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

static mb_status bad(mb_error *err, uint64_t offset, const char *what)
{
    return mb_error_set(err, MB_ERR_PARSE, "fat binary", 0, 0, "at offset %llu: %s",
                        (unsigned long long)offset, what);
}

/* The text of one PTX entry, decompressed, as a NUL-terminated string. */
static mb_status entry_text(const unsigned char *payload, uint64_t padded, uint32_t compressed,
                            uint64_t flags, uint64_t size, uint64_t offset, char **out, size_t *len,
                            mb_error *err)
{
    uint64_t cap = (flags & (MB_FATBIN_FLAG_LZ4 | MB_FATBIN_FLAG_ZSTD)) ? size : padded;
    if (cap > MAX_PTX_BYTES)
        return mb_error_set(err, MB_ERR_LIMIT, "fat binary", 0, 0,
                            "at offset %llu: PTX of %llu bytes exceeds the limit",
                            (unsigned long long)offset, (unsigned long long)cap);
    char *text = malloc(cap + 1);
    if (!text)
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    size_t n;
    if (flags & MB_FATBIN_FLAG_ZSTD) {
        if (compressed == 0 || compressed > padded) {
            free(text);
            return bad(err, offset, "zstd payload size is larger than the entry");
        }
        size_t r = ZSTD_decompress(text, cap, payload, compressed);
        if (ZSTD_isError(r)) {
            free(text);
            char msg[300];
            snprintf(msg, sizeof(msg), "zstd payload does not decompress: %s", ZSTD_getErrorName(r));
            return bad(err, offset, msg);
        }
        n = r;
    } else if (flags & MB_FATBIN_FLAG_LZ4) {
        if (compressed == 0 || compressed > padded || compressed > INT32_MAX || cap > INT32_MAX) {
            free(text);
            return bad(err, offset, "LZ4 payload size is larger than the entry");
        }
        int r = LZ4_decompress_safe((const char *)payload, text, (int)compressed, (int)cap);
        if (r < 0) {
            free(text);
            return bad(err, offset, "LZ4 payload does not decompress");
        }
        n = (size_t)r;
    } else {
        memcpy(text, payload, (size_t)cap);
        n = (size_t)cap;
    }
    text[n] = '\0';
    *len = strlen(text); /* the payload is padded with NULs */
    *out = text;
    return MB_OK;
}

mb_status mb_fatbin_extract_ptx(const void *data, size_t avail, char **ptx, size_t *len,
                                unsigned *sm, mb_error *err)
{
    *ptx = NULL;
    *len = 0;
    *sm = 0;
    const unsigned char *p = data;
    if (!p)
        return bad(err, 0, "no fat binary (NULL)");
    if (avail < 8)
        return bad(err, 0, "truncated fat binary");
    if (rd32(p) == MB_FATBIN_WRAPPER_MAGIC) {
        if (avail < 24)
            return bad(err, 0, "truncated fat binary wrapper");
        uint32_t version = rd32(p + 4);
        if (version != 1 && version != 2)
            return mb_error_set(err, MB_ERR_UNSUPPORTED, "fat binary", 0, 0,
                                "at offset 0: wrapper version %u is not supported", version);
        const void *inner;
        memcpy(&inner, p + 8, sizeof(inner));
        mb_status st = mb_fatbin_extract_ptx(inner, SIZE_MAX, ptx, len, sm, err);
        /* Version 2 wraps device code nvlink linked from relocatable objects (-rdc=true):
         * it holds the linked SASS only. */
        if (st == MB_ERR_UNSUPPORTED && version == 2 && strstr(err->msg, "holds no PTX"))
            return mb_error_set(err, MB_ERR_UNSUPPORTED, "fat binary", 0, 0,
                                "holds device code linked by nvlink (built with -rdc=true), "
                                "which has no PTX: minibench executes PTX; build without -rdc, or "
                                "give the PTX with --ptx");
        return st;
    }
    if (avail < FATBIN_HEADER_BYTES)
        return bad(err, 0, "truncated fat binary header");
    if (rd32(p) != MB_FATBIN_MAGIC) {
        char msg[120];
        snprintf(msg, sizeof(msg), "bad magic 0x%08x (expected 0x%08x or 0x%08x)", rd32(p),
                 MB_FATBIN_MAGIC, MB_FATBIN_WRAPPER_MAGIC);
        return bad(err, 0, msg);
    }
    uint16_t header = rd16(p + 6);
    uint64_t body = rd64(p + 8);
    if (header < FATBIN_HEADER_BYTES || body > avail || header > avail - body)
        return bad(err, 0, "fat binary size runs past the available data");
    uint64_t end = header + body;
    uint64_t best_off = 0;
    unsigned best_sm = 0, elf_sm = 0;
    int found = 0, nelf = 0;
    for (uint64_t off = header; off < end;) {
        if (end - off < ENTRY_MIN_HEADER)
            return bad(err, off, "truncated entry header");
        const unsigned char *e = p + off;
        uint16_t kind = rd16(e);
        uint32_t ehead = rd32(e + 4);
        uint64_t payload = rd64(e + 8);
        if (ehead < ENTRY_MIN_HEADER || ehead > end - off || payload > end - off - ehead)
            return bad(err, off, "entry size runs past the end of the fat binary");
        unsigned esm = rd32(e + ENTRY_SM);
        if (kind == MB_FATBIN_KIND_PTX) {
            if (!found || esm < best_sm) {
                best_sm = esm;
                best_off = off;
            }
            found = 1;
        } else if (kind == MB_FATBIN_KIND_ELF) {
            nelf++;
            elf_sm = esm;
        } else {
            char msg[80];
            snprintf(msg, sizeof(msg), "unknown entry kind %u", kind);
            return bad(err, off, msg);
        }
        off += ehead + payload;
    }
    if (!found) {
        if (nelf)
            return mb_error_set(err, MB_ERR_UNSUPPORTED, "fat binary", 0, 0,
                                "holds no PTX, only SASS for sm_%u: minibench executes PTX; build "
                                "with -gencode arch=compute_%u,code=compute_%u (or give the PTX "
                                "file with --ptx)",
                                elf_sm, elf_sm, elf_sm);
        return bad(err, header, "fat binary holds no entries");
    }
    const unsigned char *e = p + best_off;
    uint32_t ehead = rd32(e + 4);
    uint64_t flags = rd64(e + ENTRY_FLAGS);
    if ((flags & MB_FATBIN_FLAG_LZ4) && (flags & MB_FATBIN_FLAG_ZSTD))
        return bad(err, best_off, "entry claims both LZ4 and zstd compression");
    mb_status st = entry_text(e + ehead, rd64(e + 8), rd32(e + ENTRY_COMPRESSED_SIZE), flags,
                              rd64(e + ENTRY_UNCOMPRESSED_SIZE), best_off, ptx, len, err);
    if (st == MB_OK)
        *sm = best_sm;
    return st;
}
