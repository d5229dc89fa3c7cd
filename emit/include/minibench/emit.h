/*
 * minibench emit: writing a clone model as files.
 *
 * Every text comes from a template in templates/ (embedded at build time)
 * whose @@NAME@@ placeholders are filled here; synth/ decides what the clone
 * does, this library only writes it.
 */
#ifndef MINIBENCH_EMIT_H
#define MINIBENCH_EMIT_H

#include <minibench/synth.h>
#include <minibench/util.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The embedded template `name` ("clone.ptx", "clone.cu", "Makefile", "README.md"), or NULL. */
const char *mb_template_text(const char *name, size_t *len);

/**
 * Appends `tpl` to `out` with every @@NAME@@ placeholder replaced by the
 * value of the same key (keys[i] -> values[i], n pairs). A placeholder with
 * no value fails with MB_ERR_INVALID naming the template `name` and line.
 */
mb_status mb_template_fill(const char *name, const char *tpl, size_t len, const char *const *keys,
                           const char *const *values, size_t n, mb_buf *out, mb_error *err);

/** clone.ptx: a complete PTX module (sm_75) with the clone kernel. */
mb_status mb_emit_ptx(const mb_clone_model *m, mb_buf *out, mb_error *err);

/** clone.cu: the kernel as one asm volatile block plus a timed host main. */
mb_status mb_emit_cuda(const mb_clone_model *m, mb_buf *out, mb_error *err);

/** Where launch.json's buffers read the original's input from. */
typedef enum mb_emit_inputs {
    MB_INPUTS_IN_CLONE_DIR, /**< the clone directory's copies ("input0.bin", ...) */
    MB_INPUTS_AT_PROFILE    /**< the profile's own files (absolute paths), for a clone run in place */
} mb_emit_inputs;

/**
 * launch.json: a manifest running clone.ptx with buffers of the original
 * sizes, holding the original's input where the profile recorded it and
 * seeded bytes elsewhere.
 */
mb_status mb_emit_launch(const mb_clone_model *m, mb_emit_inputs where, mb_buf *out, mb_error *err);

/** Makefile (nvcc) and README.md (source, reduction, seed, expected statistics). */
mb_status mb_emit_makefile(const mb_clone_model *m, mb_buf *out, mb_error *err);
mb_status mb_emit_readme(const mb_clone_model *m, mb_buf *out, mb_error *err);

/**
 * Writes clone.ptx, clone.cu, launch.json, Makefile and README.md into
 * `dir` (created if missing), each atomically, after checking clone.cu with
 * libclang (mb_cuda_check_syntax); nothing is written when a check fails.
 * The model's inputs are copied there first (input<k>.bin), each checked
 * against its size and checksum while it is copied.
 */
mb_status mb_emit_clone_dir(const mb_clone_model *m, const char *dir, mb_error *err);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_EMIT_H */
