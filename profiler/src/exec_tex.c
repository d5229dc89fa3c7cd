/*
 * Texture fetches (tex.1d, tex.2d) through texture objects: 64-bit handles
 * bound to linear or pitched 2D device memory with mb_memory_bind_texture().
 *
 * tex.1d with integer coordinates is tex1Dfetch: element x of linear memory,
 * zeros outside. Other forms apply the texture's addressing mode (wrap,
 * clamp, mirror, border), normalized coordinates and point or linear
 * filtering; linear filtering weighs texels with 8 fractional bits, as the
 * hardware's filter does. Integer texels are returned as integers, or as
 * floats in [0,1] ([-1,1] signed) when the texture reads normalized floats.
 * Each fetch is reported to observers as a global load of the texel (the
 * first of the four a linear filter reads).
 */
#include "exec.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

struct exec_tex_table {
    uint64_t *handles;
    mb_texture *tex;
    size_t n, cap;
};

void exec_tex_table_free(exec_tex_table *t)
{
    if (!t)
        return;
    free(t->handles);
    free(t->tex);
    free(t);
}

static const mb_texture *tex_find(const exec_tex_table *t, uint64_t handle)
{
    for (size_t i = 0; t && i < t->n; i++)
        if (t->handles[i] == handle)
            return &t->tex[i];
    return NULL;
}

mb_status mb_memory_bind_texture(mb_memory *mem, uint64_t handle, const mb_texture *tex,
                                 mb_error *err)
{
    if (handle == 0 || !tex)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0, "texture handle 0 is reserved");
    if ((tex->channels != 1 && tex->channels != 2 && tex->channels != 4) ||
        (tex->channel_bits != 8 && tex->channel_bits != 16 && tex->channel_bits != 32) ||
        (tex->kind == MB_TEXEL_FLOAT && tex->channel_bits == 8))
        return mb_error_set(err, MB_ERR_UNSUPPORTED, "", 0, 0,
                            "texture format of %u channels of %u bits is not supported",
                            tex->channels, tex->channel_bits);
    uint64_t texel = (uint64_t)tex->channels * tex->channel_bits / 8;
    if (tex->width == 0 || tex->height == 0 || tex->pitch < tex->width * texel)
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "texture of %" PRIu64 "x%" PRIu64 " texels with a pitch of %" PRIu64
                            " bytes",
                            tex->width, tex->height, tex->pitch);
    if (!mb_memory_host(mem, tex->addr, (tex->height - 1) * tex->pitch + tex->width * texel))
        return mb_error_set(err, MB_ERR_INVALID, "", 0, 0,
                            "texture memory [0x%" PRIx64 ", +%" PRIu64 " rows) is not inside one "
                            "allocation",
                            tex->addr, tex->height);
    exec_tex_table **slot = exec_memory_tex_slot(mem);
    if (!*slot && !(*slot = calloc(1, sizeof(**slot))))
        return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
    exec_tex_table *t = *slot;
    size_t i = 0;
    while (i < t->n && t->handles[i] != handle)
        i++;
    if (i == t->n) {
        size_t cap = t->cap;
        if (MB_GROW(t->handles, cap, t->n + 1) != MB_OK ||
            MB_GROW(t->tex, t->cap, t->n + 1) != MB_OK)
            return mb_error_set(err, MB_ERR_NOMEM, "", 0, 0, "out of memory");
        t->n++;
    }
    t->handles[i] = handle;
    t->tex[i] = *tex;
    return MB_OK;
}

void mb_memory_unbind_texture(mb_memory *mem, uint64_t handle)
{
    exec_tex_table *t = *exec_memory_tex_slot(mem);
    for (size_t i = 0; t && i < t->n; i++)
        if (t->handles[i] == handle) {
            t->handles[i] = t->handles[t->n - 1];
            t->tex[i] = t->tex[t->n - 1];
            t->n--;
            return;
        }
}

/* ------------------------------------------------------------- decode */

enum { TEX_HANDLE = 4, TEX_X = 5, TEX_Y = 6 };
/* x->aux2 bits */
enum { TEXF_COORD_FLOAT = 1, TEXF_DEST_FLOAT = 2, TEXF_DEST_SIGNED = 4 };

static exec_result h_tex(exec_warp *w, const xinsn *x, uint32_t mask);

mb_status decode_tex(decode_ctx *dc, const mb_insn *insn, xinsn *x)
{
    unsigned dims = 0;
    for (unsigned i = 0; i < insn->nsuffix; i++) {
        uint16_t s = insn->suffix[i];
        if (s == MB_MOD_N1D)
            dims = 1;
        else if (s == MB_MOD_N2D)
            dims = 2;
        else if (s == MB_MOD_N3D || s == MB_MOD_A1D || s == MB_MOD_A2D || s == MB_MOD_CUBE ||
                 s == MB_MOD_ACUBE || s == MB_MOD_N2DMS || s == MB_MOD_A2DMS)
            return decode_unsupported(dc, insn, "only 1d and 2d texture fetches are supported");
    }
    mb_ptx_type dest = mb_insn_type(insn, 0), coord = mb_insn_type(insn, 1);
    if (!dims || !mb_insn_has_mod(insn, MB_MOD_V4))
        return decode_unsupported(dc, insn, "a texture fetch needs .1d or .2d and .v4");
    if (dest != MB_TYPE_F32 && dest != MB_TYPE_S32 && dest != MB_TYPE_U32)
        return decode_unsupported(dc, insn, "texture results must be .f32, .s32 or .u32");
    if (coord != MB_TYPE_F32 && coord != MB_TYPE_S32)
        return decode_unsupported(dc, insn, "texture coordinates must be .s32 or .f32");
    if (insn->noperands != 2)
        return decode_unsupported(dc, insn,
                                  "texture fetches with a sampler, level, offset or depth operand "
                                  "are not supported");
    const mb_operand *d = mb_insn_operand(dc->fn, insn, 0);
    const mb_operand *src = mb_insn_operand(dc->fn, insn, 1);
    if (d->kind != MB_OPND_VEC || d->u.list.count != 4 || src->kind != MB_OPND_BRACKET_LIST ||
        src->u.list.count != 2)
        return decode_unsupported(dc, insn, "unsupported texture operands");
    for (unsigned i = 0; i < 4; i++) {
        const mb_operand *e = &dc->fn->operands[d->u.list.first + i];
        if (e->kind == MB_OPND_SINK) {
            x->op[i] = XREF_NONE;
            continue;
        }
        if (e->kind != MB_OPND_REG || decode_reg_bits(dc, e) != 32)
            return decode_unsupported(dc, insn, "texture results go to 32-bit registers");
        x->op[i] = dc->ef->reg_ref[e->u.reg];
    }
    const mb_operand *handle = &dc->fn->operands[src->u.list.first];
    const mb_operand *coords = &dc->fn->operands[src->u.list.first + 1];
    if (handle->kind != MB_OPND_REG)
        return decode_unsupported(dc, insn,
                                  "texture references (.texref) are not supported; use texture "
                                  "objects");
    mb_status st = decode_operand(dc, insn, handle, MB_TYPE_U64, &x->op[TEX_HANDLE]);
    if (st != MB_OK)
        return st;
    unsigned ncoords = coords->kind == MB_OPND_VEC ? coords->u.list.count : 1;
    if (ncoords < dims)
        return decode_unsupported(dc, insn, "too few texture coordinates");
    for (unsigned i = 0; i < dims; i++) {
        const mb_operand *c = coords->kind == MB_OPND_VEC
                                  ? &dc->fn->operands[coords->u.list.first + i]
                                  : coords;
        st = decode_operand(dc, insn, c, coord, &x->op[TEX_X + i]);
        if (st != MB_OK)
            return st;
    }
    x->nops = (uint8_t)(TEX_X + dims);
    x->aux = dims;
    x->aux2 = (coord == MB_TYPE_F32 ? TEXF_COORD_FLOAT : 0) |
              (dest == MB_TYPE_F32 ? TEXF_DEST_FLOAT : 0) |
              (dest == MB_TYPE_S32 ? TEXF_DEST_SIGNED : 0);
    x->space = MB_SPACE_GLOBAL;
    x->fn = h_tex;
    return MB_OK;
}

/* ------------------------------------------------------------ execute */

/* Applies the addressing mode to texel index i of n; -1: outside (border). */
static int64_t address(int64_t i, uint64_t n, mb_tex_address mode)
{
    int64_t m = (int64_t)n;
    switch (mode) {
    case MB_TEX_WRAP: return ((i % m) + m) % m;
    case MB_TEX_MIRROR: {
        int64_t p = ((i % (2 * m)) + 2 * m) % (2 * m);
        return p < m ? p : 2 * m - 1 - p;
    }
    case MB_TEX_BORDER: return i < 0 || i >= m ? -1 : i;
    case MB_TEX_CLAMP:
    default: return i < 0 ? 0 : i >= m ? m - 1 : i;
    }
}

static float half_to_float(uint16_t h)
{
    int e = (h >> 10) & 0x1f, f = h & 0x3ff;
    float v = e == 0 ? ldexpf((float)f, -24) : e == 31 ? (f ? NAN : INFINITY)
                                                       : ldexpf((float)(f | 0x400), e - 25);
    return (h & 0x8000) ? -v : v;
}

/* Reads texel (ix, iy) into v (as floats when `as_float`, else integer bits). */
static void read_texel(const mb_texture *t, const uint8_t *p, int as_float, float *vf, uint32_t *vi)
{
    for (unsigned c = 0; c < 4; c++) {
        vf[c] = 0.0f;
        vi[c] = 0;
    }
    for (unsigned c = 0; c < t->channels; c++) {
        uint32_t bits = 0;
        if (t->channel_bits == 8)
            bits = p[c];
        else if (t->channel_bits == 16)
            memcpy(&bits, p + 2 * c, 2);
        else
            memcpy(&bits, p + 4 * c, 4);
        if (t->kind == MB_TEXEL_FLOAT) {
            float f;
            if (t->channel_bits == 16) {
                f = half_to_float((uint16_t)bits);
            } else {
                memcpy(&f, &bits, 4);
            }
            vf[c] = f;
            memcpy(&vi[c], &f, 4);
            continue;
        }
        int32_t s = t->channel_bits == 8    ? (int8_t)bits
                    : t->channel_bits == 16 ? (int16_t)bits
                                            : (int32_t)bits;
        if (t->kind == MB_TEXEL_SIGNED)
            vi[c] = (uint32_t)s;
        else
            vi[c] = bits;
        if (as_float) {
            if (t->read_normalized && t->channel_bits < 32) {
                float max = (float)((1u << (t->channel_bits - (t->kind == MB_TEXEL_SIGNED))) - 1);
                vf[c] = t->kind == MB_TEXEL_SIGNED ? fmaxf((float)s / max, -1.0f) : (float)bits / max;
            } else {
                vf[c] = t->kind == MB_TEXEL_SIGNED ? (float)s : (float)bits;
            }
        }
    }
}

static exec_result h_tex(exec_warp *w, const xinsn *x, uint32_t mask)
{
    exec_cta *cta = w->cta;
    const exec_tex_table *table = *exec_memory_tex_slot(cta->mem);
    const uint64_t *handles = xr64(w, x->op[TEX_HANDLE]);
    const int dims = (int)x->aux, coord_float = x->aux2 & TEXF_COORD_FLOAT,
              dest_float = x->aux2 & TEXF_DEST_FLOAT;
    uint32_t out[4][32];
    const mb_texture *t = NULL;
    uint64_t t_handle = 0;
    w->access_space = MB_SPACE_GLOBAL;
    for (uint32_t m = mask; m; m &= m - 1) {
        int l = __builtin_ctz(m);
        if (!t || handles[l] != t_handle) {
            t_handle = handles[l];
            t = tex_find(table, t_handle);
            if (!t)
                return exec_fault_at(w, x, l,
                                     "texture fetch through 0x%" PRIx64
                                     ", which is not a bound texture object",
                                     t_handle);
        }
        const uint64_t texel = (uint64_t)t->channels * t->channel_bits / 8;
        w->access_bytes = (uint32_t)texel;
        float cx = 0, cy = 0;
        int64_t ix = 0, iy = 0;
        if (coord_float) {
            cx = xrf(w, x->op[TEX_X])[l];
            cy = dims > 1 ? xrf(w, x->op[TEX_Y])[l] : 0.5f;
            if (t->normalized_coords) {
                cx *= (float)t->width;
                if (dims > 1)
                    cy *= (float)t->height;
            }
        } else {
            ix = (int32_t)xr32(w, x->op[TEX_X])[l];
            iy = dims > 1 ? (int32_t)xr32(w, x->op[TEX_Y])[l] : 0;
        }
        float acc[4] = {0, 0, 0, 0};
        uint32_t ints[4] = {0, 0, 0, 0};
        int linear = coord_float && t->filter_linear && dest_float;
        /* Texel corners and weights: one texel for point sampling, four for linear. */
        int64_t xs[2], ys[2];
        float wx[2] = {1, 0}, wy[2] = {1, 0};
        int nx = 1, ny = 1;
        if (linear) {
            float fx = cx - 0.5f, fy = dims > 1 ? cy - 0.5f : 0.0f;
            float bx = floorf(fx), by = floorf(fy);
            float ax = roundf((fx - bx) * 256.0f) / 256.0f, ay = roundf((fy - by) * 256.0f) / 256.0f;
            xs[0] = (int64_t)bx;
            xs[1] = xs[0] + 1;
            ys[0] = (int64_t)by;
            ys[1] = ys[0] + 1;
            wx[0] = 1 - ax;
            wx[1] = ax;
            wy[0] = 1 - ay;
            wy[1] = ay;
            nx = 2;
            ny = dims > 1 ? 2 : 1;
        } else if (coord_float) {
            xs[0] = (int64_t)floorf(cx);
            ys[0] = (int64_t)floorf(cy);
        } else {
            xs[0] = ix;
            ys[0] = iy;
        }
        int first = 1;
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int64_t px, py;
                if (!coord_float && dims == 1) { /* tex1Dfetch: zeros outside */
                    px = xs[i] >= 0 && (uint64_t)xs[i] < t->width ? xs[i] : -1;
                    py = 0;
                } else {
                    px = address(xs[i], t->width, t->address[0]);
                    py = dims > 1 ? address(ys[j], t->height, t->address[1]) : 0;
                }
                float vf[4];
                uint32_t vi[4];
                if (px < 0 || py < 0) {
                    for (int c = 0; c < 4; c++) {
                        vf[c] = t->address[0] == MB_TEX_BORDER && (coord_float || dims > 1)
                                    ? t->border[c]
                                    : 0.0f;
                        memcpy(&vi[c], &vf[c], 4);
                        if (!dest_float)
                            vi[c] = 0;
                    }
                } else {
                    uint64_t a = t->addr + (uint64_t)py * t->pitch + (uint64_t)px * texel;
                    if (first)
                        w->addrs[l] = a;
                    first = 0;
                    uint64_t base, size;
                    uint8_t *host_base;
                    const uint8_t *p = exec_memory_lookup(cta->mem, a, texel, &base, &size, &host_base);
                    if (!p)
                        return exec_fault_at(w, x, l,
                                             "texture fetch of texel (%" PRId64 ",%" PRId64
                                             ") at 0x%" PRIx64 " outside device memory",
                                             px, py, a);
                    read_texel(t, p, dest_float, vf, vi);
                }
                for (int c = 0; c < 4; c++)
                    acc[c] += wx[i] * wy[j] * vf[c];
                if (i == 0 && j == 0)
                    memcpy(ints, vi, sizeof(ints));
            }
        if (first)
            w->addrs[l] = t->addr;
        for (int c = 0; c < 4; c++) {
            if (dest_float)
                memcpy(&out[c][l], &acc[c], 4);
            else
                out[c][l] = ints[c];
        }
    }
    for (int c = 0; c < 4; c++)
        if (x->op[c] != XREF_NONE) {
            uint32_t *d = xr32(w, x->op[c]);
            FOR_LANES(mask, l, d[l] = out[c][l]);
        }
    return EXEC_NEXT;
}
