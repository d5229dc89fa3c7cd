/* Whole-file reads and atomic (temp file + rename) writes. */
#define _POSIX_C_SOURCE 200809L
#include <minibench/util.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

mb_status mb_read_file(const char *path, size_t max_bytes, char **data, size_t *len, mb_error *err)
{
    *data = NULL;
    *len = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(fp);
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "is a directory, expected a file");
    }
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (MB_GROW(buf, cap, n + 65536 + 1) != MB_OK) {
            free(buf);
            fclose(fp);
            return mb_error_set(err, MB_ERR_NOMEM, path, 0, 0, "out of memory reading file");
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (n > max_bytes) {
            free(buf);
            fclose(fp);
            return mb_error_set(err, MB_ERR_LIMIT, path, 0, 0,
                                "file is larger than the limit of %zu bytes", max_bytes);
        }
        if (got == 0)
            break;
    }
    int failed = ferror(fp);
    fclose(fp);
    if (failed) {
        free(buf);
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "read failed");
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return MB_OK;
}

mb_status mb_atomic_open(mb_atomic_file *af, const char *path, mb_error *err)
{
    memset(af, 0, sizeof(*af));
    size_t plen = strlen(path);
    af->path = malloc(plen + 1);
    af->tmp_path = malloc(plen + 16);
    if (!af->path || !af->tmp_path) {
        mb_atomic_abort(af);
        return mb_error_set(err, MB_ERR_NOMEM, path, 0, 0, "out of memory");
    }
    memcpy(af->path, path, plen + 1);
    snprintf(af->tmp_path, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(af->tmp_path);
    if (fd < 0) {
        mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot create: %s", strerror(errno));
        free(af->tmp_path);
        af->tmp_path = NULL;
        mb_atomic_abort(af);
        return MB_ERR_IO;
    }
    /* mkstemp creates the file 0600; give it the mode a plain fopen would. */
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        close(fd);
        mb_atomic_abort(af);
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot set file mode: %s", strerror(errno));
    }
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        mb_atomic_abort(af);
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "cannot open for writing: %s", strerror(errno));
    }
    return MB_OK;
}

mb_status mb_atomic_commit(mb_atomic_file *af, mb_error *err)
{
    mb_status st = MB_OK;
    if (!af->fp)
        return mb_error_set(err, MB_ERR_IO, af->path, 0, 0, "file is not open");
    int failed = ferror(af->fp);
    if (fclose(af->fp) != 0)
        failed = 1;
    af->fp = NULL;
    if (failed)
        st = mb_error_set(err, MB_ERR_IO, af->path, 0, 0, "write failed: %s", strerror(errno));
    else if (rename(af->tmp_path, af->path) != 0)
        st = mb_error_set(err, MB_ERR_IO, af->path, 0, 0, "cannot rename into place: %s",
                          strerror(errno));
    else {
        free(af->tmp_path);
        af->tmp_path = NULL;
    }
    mb_atomic_abort(af);
    return st;
}

void mb_atomic_abort(mb_atomic_file *af)
{
    if (af->fp) {
        fclose(af->fp);
        af->fp = NULL;
    }
    if (af->tmp_path) {
        remove(af->tmp_path);
        free(af->tmp_path);
        af->tmp_path = NULL;
    }
    free(af->path);
    af->path = NULL;
}

mb_status mb_write_file_atomic(const char *path, const void *data, size_t len, mb_error *err)
{
    mb_atomic_file af;
    mb_status st = mb_atomic_open(&af, path, err);
    if (st != MB_OK)
        return st;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        mb_atomic_abort(&af);
        return mb_error_set(err, MB_ERR_IO, path, 0, 0, "write failed: %s", strerror(errno));
    }
    return mb_atomic_commit(&af, err);
}
