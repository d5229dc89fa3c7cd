/* Shared state of the PTX parser (ptx_parse_module.c, ptx_parse_body.c). */
#ifndef MB_PTX_PARSER_H
#define MB_PTX_PARSER_H

#include <minibench/profiler.h>

#include "ptx_lexer.h"

typedef struct ptx_parser {
    ptx_lexer lx;
    ptx_token tok; /* current token */
    mb_module *m;
    mb_error *err;
    const char *filename;
    /* lookup tables built per parse (no global state) */
    mb_strmap *types, *mods, *opcodes, *sregs;
    /* function being parsed */
    mb_function *fn;
    int scope;
    int cur_loc;
    mb_strmap *local_names; /* function-level variable name -> index in fn->vars, scoped */
    /* undo logs that restore shadowed register and variable names when a scope closes */
    struct shadow {
        int scope;
        int is_var;
        const char *name;
        int previous;
    } *shadows;
    size_t nshadows, cap_shadows;
} ptx_parser;

/* Reports an error at the current token. */
mb_status pp_error(ptx_parser *p, const char *fmt, ...) MB_PRINTF(2, 3);
/* Reports an error at a given position. */
mb_status pp_error_at(ptx_parser *p, int line, int col, const char *fmt, ...) MB_PRINTF(4, 5);
mb_status pp_nomem(ptx_parser *p);

mb_status pp_next(ptx_parser *p);
int pp_is_punct(const ptx_parser *p, char c);
int pp_is_dot(const ptx_parser *p, const char *name);
int pp_is_ident(const ptx_parser *p, const char *name);
mb_status pp_expect_punct(ptx_parser *p, char c, const char *context);
/* Peeks at the kind/punct of the token after the current one. */
int pp_peek_punct(ptx_parser *p, char c);

char *pp_strdup_tok(ptx_parser *p, const ptx_token *t);

/* Records that a declaration in the current scope hides `name`'s previous
 * binding (-1: none), so closing the scope restores it. */
mb_status pp_remember_shadow(ptx_parser *p, int is_var, const char *name, int previous);

/* Body parsing (ptx_parse_body.c). */
mb_status pp_parse_body(ptx_parser *p);
/* Parses `name`, `name[N]...` for a variable-like declaration and returns the dims. */
mb_status pp_parse_dims(ptx_parser *p, unsigned *ndims, uint64_t *dims, int allow_unsized);
/* Parses a `.space [attrs] .align .type name[dims] = init` declaration whose
 * state-space token is current; appends to module (fn == NULL) or function. */
mb_status pp_parse_var_decl(ptx_parser *p, mb_space space, mb_linkage linkage, int in_function);
/* Parses a parameter declaration (.param or .reg) into `out`. */
mb_status pp_parse_param(ptx_parser *p, mb_param *out, int allow_anonymous);
/* Looks up a module-level symbol: returns (symkind << 24) | index or -1. */
int pp_module_symbol(ptx_parser *p, const char *name, size_t len);
mb_status pp_parse_loc(ptx_parser *p);

#endif
