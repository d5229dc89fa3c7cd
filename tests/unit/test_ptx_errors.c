/* Malformed PTX: every case fails with the right status, a message saying
 * what was wrong or expected, and the exact file:line:column. Cheap fuzzing
 * (every prefix and many one-byte mutations of real examples) checks that
 * nothing crashes and every failure carries a location. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <minibench/profiler.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR ".version 9.0\n.target sm_75\n.address_size 64\n" /* 3 lines */
#define ENTRY HDR ".entry k()\n{\n"                             /* body starts on line 6 */

typedef struct error_case {
    const char *name;
    const char *text;
    size_t len; /* 0: strlen(text) */
    mb_status status;
    const char *phrase;
    int line, col;
} error_case;

static void check_case(const error_case *c)
{
    mb_module *m = (mb_module *)&m; /* must come back NULL */
    mb_error err;
    mb_error_clear(&err);
    size_t len = c->len ? c->len : strlen(c->text);
    mb_status st = mb_ptx_parse(c->text, len, "bad.ptx", &m, &err);
    char msg[2048];
    mb_error_format(&err, msg, sizeof(msg));
    if (st != c->status)
        fail_msg("%s: status %s, expected %s (%s)", c->name, mb_status_name(st),
                 mb_status_name(c->status), msg);
    assert_null(m);
    assert_int_equal(err.status, c->status);
    assert_string_equal(err.file, "bad.ptx");
    if (!strstr(err.msg, c->phrase))
        fail_msg("%s: message '%s' lacks '%s'", c->name, err.msg, c->phrase);
    if (err.line != c->line || err.col != c->col)
        fail_msg("%s: reported at %d:%d, expected %d:%d (%s)", c->name, err.line, err.col,
                 c->line, c->col, msg);
    /* The formatted form starts with file:line:col. */
    char prefix[64];
    snprintf(prefix, sizeof(prefix), "bad.ptx:%d:%d: error: ", c->line, c->col);
    assert_int_equal(strncmp(msg, prefix, strlen(prefix)), 0);
}

static void check_cases(const error_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check_case(&cases[i]);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------ truncation */

static void test_truncated_input(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"EOF inside a function body", ENTRY "\t.reg .b32 %r<2>;\n\tmov.u32 %r1, 1;\n", 0,
         MB_ERR_PARSE, "unexpected end of file inside function 'k'", 8, 1},
        {"EOF inside a nested block", ENTRY "\t{\n\tret;\n", 0, MB_ERR_PARSE,
         "unexpected end of file inside function 'k'", 8, 1},
        {"EOF after an operand's comma", ENTRY "\t.reg .b32 %r<2>;\n\tmov.u32 %r1, ", 0,
         MB_ERR_PARSE, "expected an operand, found end of file", 7, 15},
        {"EOF before the semicolon", ENTRY "\t.reg .b32 %r<2>;\n\tmov.u32 %r1", 0, MB_ERR_PARSE,
         "unexpected end of file: missing ';' after 'mov'", 7, 13},
        {"EOF inside a vector operand", ENTRY "\t.reg .b32 %r<2>;\n\tmov.b64 {%r0, %r1", 0,
         MB_ERR_PARSE, "expected '}' to close the vector, found end of file", 7, 19},
        {"EOF inside a parameter list", HDR ".entry k(\n\t.param .u64 a,\n", 0, MB_ERR_PARSE,
         "expected .param or .reg in a parameter list, found end of file", 6, 1},
        {"EOF inside a parameter", HDR ".entry k(\n\t.param .u64", 0, MB_ERR_PARSE,
         "expected a parameter name, found end of file", 5, 13},
        {"EOF after the kernel name", HDR ".entry k", 0, MB_ERR_PARSE,
         "expected '(' to open the kernel's parameter list, found end of file", 4, 9},
        {"EOF after the signature", HDR ".func f()\n", 0, MB_ERR_PARSE,
         "expected '{' or ';' after the function signature, found end of file", 5, 1},
        {"EOF inside a .reg", ENTRY "\t.reg .b32 %r<", 0, MB_ERR_PARSE,
         "expected a register count inside <>, found end of file", 6, 15},
        {"EOF inside an initialiser", HDR ".global .u32 a[2] = {1,", 0, MB_ERR_PARSE,
         "expected a constant or symbol in initialiser, found end of file", 4, 24},
        {"EOF inside a .section", HDR ".section .debug_info {\n.b8 1\n", 0, MB_ERR_PARSE,
         "unterminated .section block", 4, 1},
        {"only .version", ".version 9.0\n", 0, MB_ERR_PARSE,
         "expected .target after .version, found end of file", 2, 1},
    };
    check_cases(cases, N(cases));
}

/* ----------------------------------------------------- names */

static void test_undefined_and_undeclared(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"undefined label", ENTRY "\tbra.uni $L__nowhere;\n\tret;\n}\n", 0, MB_ERR_PARSE,
         "undefined label '$L__nowhere' in function 'k'", 6, 10},
        {"undefined branch target", ENTRY "\t.reg .b32 %r1;\n\tts: .branchtargets L0, L1;\n"
                                          "\tbrx.idx %r1, ts;\nL0:\n\tret;\n}\n",
         0, MB_ERR_PARSE, "undefined label 'L1'", 7, 25},
        {"undeclared register", ENTRY "\t.reg .b32 %r<2>;\n\tadd.s32 %r1, %r1, %r9;\n}\n", 0,
         MB_ERR_PARSE, "undeclared register '%r9'", 7, 20},
        {"undeclared address register", ENTRY "\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [%rd9];\n}\n",
         0, MB_ERR_PARSE, "undeclared register '%rd9'", 7, 22},
        {"undeclared call argument",
         HDR ".func f(.param .b32 a) { ret; }\n.entry k()\n{\n\tcall.uni f, (%r9);\n}\n", 0,
         MB_ERR_PARSE, "undeclared register '%r9'", 7, 15},
        {"undeclared guard", ENTRY "\t@%p1 ret;\n}\n", 0, MB_ERR_PARSE,
         "undeclared register '%p1' in guard", 6, 3},
        {"register used after its block", ENTRY "\t{\n\t.reg .b32 %t;\n\t}\n\tmov.u32 %t, 1;\n}\n",
         0, MB_ERR_PARSE, "undeclared register '%t'", 9, 10},
        {"undeclared identifier", ENTRY "\t.reg .b64 %rd1;\n\tmov.u64 %rd1, nowhere;\n}\n", 0,
         MB_ERR_PARSE, "undeclared identifier 'nowhere'", 7, 16},
        {"undeclared symbol in initialiser", HDR ".global .u64 p = nowhere;\n", 0, MB_ERR_PARSE,
         "undeclared symbol 'nowhere' in initialiser", 4, 18},
        {"undeclared call target", ENTRY "\t.reg .b32 %r1;\n\tts: .calltargets nofunc;\n}\n", 0,
         MB_ERR_PARSE, "'nofunc' is not a declared function", 7, 19},
    };
    check_cases(cases, N(cases));
}

static void test_duplicates(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"duplicate label", ENTRY "L1:\n\tret;\nL1:\n\tret;\n}\n", 0, MB_ERR_PARSE,
         "duplicate label 'L1'", 8, 1},
        {"redeclared register", ENTRY "\t.reg .b32 %r<4>;\n\t.reg .b32 %r2;\n}\n", 0, MB_ERR_PARSE,
         "redeclaration of register '%r2'", 7, 12},
        {"redeclared register range", ENTRY "\t.reg .b32 %r<4>;\n\t.reg .pred %r<2>;\n}\n", 0,
         MB_ERR_PARSE, "redeclaration of register '%r0'", 7, 13},
        {"redeclared register in a nested block",
         ENTRY "\t.reg .b32 %r1;\n\t{\n\t.reg .b32 %r1;\n\t.reg .b32 %r1;\n\t}\n}\n", 0,
         MB_ERR_PARSE, "redeclaration of register '%r1'", 9, 12},
        {"redeclared .param in a block",
         ENTRY "\t{\n\t.param .b32 param0;\n\t.param .b32 param0;\n\t}\n}\n", 0, MB_ERR_PARSE,
         "redeclaration of 'param0'", 8, 14},
        {"redeclared module variable", HDR ".global .u32 g;\n.global .u32 g;\n", 0, MB_ERR_PARSE,
         "redeclaration of 'g'", 5, 14},
        {"function redefined", HDR ".func f() { ret; }\n.func f() { ret; }\n", 0, MB_ERR_PARSE,
         "redefinition of function 'f'", 5, 7},
        {"function named like a variable", HDR ".global .u32 f;\n.func f() { ret; }\n", 0,
         MB_ERR_PARSE, "'f' is already declared as a variable", 5, 7},
    };
    check_cases(cases, N(cases));
}

/* ------------------------------------------------ instructions */

static void test_bad_instructions(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"unknown opcode", ENTRY "\t.reg .b32 %r<3>;\n\tfrobnicate.u32 %r1, %r2;\n}\n", 0,
         MB_ERR_PARSE, "unknown instruction 'frobnicate'", 7, 2},
        {"unknown modifier", ENTRY "\t.reg .b32 %r<3>;\n\tadd.wibble.u32 %r1, %r2, %r2;\n}\n", 0,
         MB_ERR_PARSE, "unknown modifier or type '.wibble' on 'add'", 7, 5},
        {"add with 2 operands", ENTRY "\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2;\n}\n", 0,
         MB_ERR_PARSE, "'add' takes 3 operands, found 2", 7, 2},
        {"mov with 3 operands", ENTRY "\t.reg .b32 %r<3>;\n\tmov.u32 %r1, %r2, %r0;\n}\n", 0,
         MB_ERR_PARSE, "'mov' takes 2 operands, found 3", 7, 2},
        {"ret with an operand", ENTRY "\t.reg .b32 %r<3>;\n\t  ret %r1;\n}\n", 0, MB_ERR_PARSE,
         "'ret' takes 0 operands, found 1", 7, 4},
        {"ld with 1 operand", ENTRY "\t.reg .b32 %r<3>;\n\tld.global.u32 %r1;\n}\n", 0,
         MB_ERR_PARSE, "'ld' takes 2 to 4 operands, found 1", 7, 2},
        {"guard that is not a predicate", ENTRY "\t.reg .b32 %r<3>;\n\t@%r1 bra L;\nL:\n\tret;\n}\n",
         0, MB_ERR_PARSE, "guard '%r1' is not a predicate register", 7, 3},
        {"guard without a register", ENTRY "\t@ 1 ret;\n}\n", 0, MB_ERR_PARSE,
         "expected a predicate register after '@'", 6, 4},
        {"missing operand", ENTRY "\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, ;\n}\n", 0,
         MB_ERR_PARSE, "expected an operand", 7, 20},
        {"missing semicolon", ENTRY "\t.reg .b32 %r<3>;\n\tadd.s32 %r1, %r2, %r2\n\tret;\n}\n", 0,
         MB_ERR_PARSE, "expected ',' or ';' after an operand of 'add'", 8, 2},
        {"unclosed vector", ENTRY "\t.reg .b32 %r<3>;\n\t.reg .b64 %rd1;\n"
                                  "\tld.global.v2.u32 {%r1, %r2, [%rd1];\n}\n",
         0, MB_ERR_PARSE, "expected '}' to close the vector, found ';'", 8, 36},
        {"bra to a register", ENTRY "\t.reg .b32 %r<3>;\n\tbra %r1;\n}\n", 0, MB_ERR_PARSE,
         "bra needs a code label as its target", 7, 2},
        {"negated symbol", ENTRY "\t.reg .b64 %rd1;\n\tmov.u64 %rd1, -k;\n}\n", 0, MB_ERR_PARSE,
         "only constants can be negated", 7, 17},
        {"! on a constant", ENTRY "\t.reg .pred %p1;\n\tnot.pred %p1, !1;\n}\n", 0, MB_ERR_PARSE,
         "'!' applies only to predicate registers", 7, 18},
        {"unknown special register component", ENTRY "\t.reg .b32 %r1;\n\tmov.u32 %r1, %tid.q;\n}\n",
         0, MB_ERR_PARSE, "unknown component '.q' of %tid", 7, 19},
        {"bad address", ENTRY "\t.reg .b32 %r1;\n\tld.global.u32 %r1, [+4];\n}\n", 0, MB_ERR_PARSE,
         "expected a register, symbol or constant address after '['", 7, 22},
        {"unknown directive in a body", ENTRY "\t.frob 1;\n}\n", 0, MB_ERR_PARSE,
         "unknown directive '.frob' in a function body", 6, 2},
        {"missing closing brace", ENTRY "\tret;\n.entry j()\n{\n\tret;\n}\n", 0, MB_ERR_PARSE,
         "unknown directive '.entry' in a function body", 7, 1},
    };
    check_cases(cases, N(cases));
}

/* ------------------------------------------------------- types */

static void test_bad_types(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"register type s33", ENTRY "\t.reg .s33 %r<2>;\n}\n", 0, MB_ERR_PARSE,
         "unknown register type '.s33'", 6, 7},
        {"instruction type q32", ENTRY "\t.reg .b32 %r<3>;\n\tadd.q32 %r1, %r2, %r2;\n}\n", 0,
         MB_ERR_PARSE, "unknown modifier or type '.q32' on 'add'", 7, 5},
        {"register without a type", ENTRY "\t.reg %r<2>;\n}\n", 0, MB_ERR_PARSE,
         "register declaration has no type", 6, 7},
        {"register with an opaque type", ENTRY "\t.reg .texref %t;\n}\n", 0, MB_ERR_PARSE,
         "registers cannot have an opaque type", 6, 15},
        {"variable type s33", HDR ".global .s33 g;\n", 0, MB_ERR_PARSE,
         "unknown type or attribute '.s33' in declaration", 4, 9},
        {"variable with two types", HDR ".global .u32 .f32 g;\n", 0, MB_ERR_PARSE,
         "declaration has two types", 4, 14},
        {"parameter type", HDR ".entry k(.param .x64 a) { ret; }\n", 0, MB_ERR_PARSE,
         "unknown type or attribute '.x64' in parameter", 4, 17},
        {"alignment 3", HDR ".global .align 3 .u32 a;\n", 0, MB_ERR_PARSE,
         "alignment 3 is not a power of two", 4, 16},
        {"unknown attribute", HDR ".global .attribute(.unified) .u32 a;\n", 0, MB_ERR_PARSE,
         "unknown variable attribute '.unified'", 4, 20},
        {".local at module scope", HDR ".local .u32 a;\n", 0, MB_ERR_PARSE,
         "'.local' variables are not allowed at module scope", 4, 1},
    };
    check_cases(cases, N(cases));
}

/* ------------------------------------------------------- limits */

static void test_limits(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"absurdly large array", HDR ".global .b8 huge[99999999999999];\n", 0, MB_ERR_LIMIT,
         "'huge' is too large", 4, 13},
        {"multi-dim product overflows 64 bits", HDR ".global .b8 m[4294967296][4294967296];\n", 0,
         MB_ERR_LIMIT, "array 'm' has too many elements", 4, 13},
        {"multi-dim over the byte limit", HDR ".global .u32 m2[65536][65536][65536];\n", 0,
         MB_ERR_LIMIT, "'m2' is too large", 4, 14},
        {"elements times size over the limit", HDR ".global .v4 .f64 v[4294967296];\n", 0,
         MB_ERR_LIMIT, "'v' is too large", 4, 18},
        {"huge .local in a body", ENTRY "\t.local .b8 depot[68719476737];\n}\n", 0, MB_ERR_LIMIT,
         "'depot' is too large", 6, 13},
        {"huge parameter", HDR ".entry k(.param .b8 p[99999999999999]) { ret; }\n", 0, MB_ERR_LIMIT,
         "'p' is too large", 4, 10},
        {"100 million registers", ENTRY "\t.reg .b32 %r<100000000>;\n}\n", 0, MB_ERR_LIMIT,
         "register count 100000000 is out of range", 6, 15},
        {"zero registers", ENTRY "\t.reg .b32 %r<0>;\n}\n", 0, MB_ERR_LIMIT,
         "register count 0 is out of range", 6, 15},
        {"zero-sized dimension", HDR ".global .u32 z[0];\n", 0, MB_ERR_PARSE,
         "array dimension must be positive", 4, 15},
        {"five dimensions", HDR ".global .u8 d5[1][1][1][1][1];\n", 0, MB_ERR_PARSE,
         "arrays have at most 4 dimensions", 4, 27},
        {"unsized inner dimension", HDR ".global .u8 d[2][];\n", 0, MB_ERR_PARSE,
         "only the first array dimension may be left unsized", 4, 18},
        {"initialiser longer than the array", HDR ".global .u32 a[2] = {1, 2, 3};\n", 0,
         MB_ERR_PARSE, "initialiser of 'a' has 3 elements, more than its 2", 4, 14},
        {"inner initialiser longer than its row", HDR ".global .u32 a[2][2] = {{1, 2, 3}, {4}};\n",
         0, MB_ERR_PARSE, "initialiser list has 3 elements, more than the 2", 4, 25},
    };
    check_cases(cases, N(cases));
}

/* ----------------------------------------------- module structure */

static void test_module_structure(void **state)
{
    (void)state;
    static const error_case cases[] = {
        {"missing .version", ".target sm_75\n.entry k() { ret; }\n", 0, MB_ERR_PARSE,
         "a PTX module must start with .version", 1, 1},
        {"missing .target", ".version 9.0\n.address_size 64\n.entry k() { ret; }\n", 0,
         MB_ERR_PARSE, "expected .target after .version, found '.address_size'", 2, 1},
        {"malformed .version", ".version 9\n.target sm_75\n", 0, MB_ERR_PARSE,
         "expected a version number like 8.8 after .version", 1, 10},
        {"PTX 9.1", ".version 9.1\n.target sm_75\n", 0, MB_ERR_UNSUPPORTED,
         "PTX ISA version 9.1 is newer than the 9.0", 1, 10},
        {"PTX 10.0", "// new\n.version 10.0\n.target sm_75\n", 0, MB_ERR_UNSUPPORTED,
         "PTX ISA version 10.0 is newer than the 9.0", 2, 10},
        {".address_size 48", ".version 9.0\n.target sm_75\n.address_size 48\n", 0, MB_ERR_PARSE,
         ".address_size must be 32 or 64, not 48", 3, 15},
        {"unknown directive at module scope", HDR ".frobnicate 3;\n", 0, MB_ERR_PARSE,
         "unknown directive '.frobnicate' at module scope", 4, 1},
        {"instruction at module scope", HDR "ret;\n", 0, MB_ERR_PARSE,
         "expected a directive at module scope, found 'ret'", 4, 1},
        {".alias", HDR ".func a() { ret; }\n.func b();\n.alias b, a;\n", 0, MB_ERR_UNSUPPORTED,
         "the .alias directive is not supported", 6, 1},
        {"empty input", "", 0, MB_ERR_PARSE, "empty module", 1, 1},
        {"only comments", "  \n// nothing here\n/* or here */\n", 0, MB_ERR_PARSE, "empty module",
         1, 1},
        {".pragma without a string", HDR ".pragma nounroll;\n", 0, MB_ERR_PARSE,
         "expected a string after .pragma", 4, 9},
        {".file without a name", HDR ".file 1 2\n", 0, MB_ERR_PARSE,
         "expected a file name string in .file", 4, 9},
        {".loc without numbers", ENTRY "\t.loc 1 x\n\tret;\n}\n", 0, MB_ERR_PARSE,
         "expected file, line and column numbers in .loc", 6, 9},
    };
    check_cases(cases, N(cases));
}

/* -------------------------------------------------------- lexing */

static void test_lexical_errors(void **state)
{
    (void)state;
    static const char nul[] = ENTRY "\tret;\0\n}\n";
    /* NULs hidden in comments: once let through, printing cut the text short */
    static const char nul_comment[] = ".version 8.8\n.target sm_75\n// note \0 here\n";
    static const char nul_block[] = ".version 8.8\n.target sm_75\n/* a\n b \0 */\n";
    static const char nul_dwarf[] = ".version 8.8\n.target sm_75\n@@DWARF .b8 1\0\n";
    static const char nul_string[] = ".version 8.8\n.target sm_75\n.pragma \"nounroll\0\";\n";
    static const char garbage[] = "\x7f"
                                  "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0";
    static const char utf8[] = HDR "\xc3\xa9";
    static const error_case cases[] = {
        {"unterminated block comment", HDR "\n  /* never\n closed\n", 0, MB_ERR_PARSE,
         "unterminated block comment", 5, 3},
        {"unterminated string", HDR ".file 1 \"abc\n", 0, MB_ERR_PARSE,
         "unterminated string literal", 4, 9},
        {"string cut by EOF", HDR ".file 1 \"abc", 0, MB_ERR_PARSE, "unterminated string literal",
         4, 9},
        {"malformed 0f literal", ENTRY "\t.reg .f32 %f<2>;\n\tmov.f32 %f1, 0f3F80;\n}\n", 0,
         MB_ERR_PARSE, "malformed f32 literal: expected 0f followed by 8 hex digits", 7, 15},
        {"0f literal with 9 digits", ENTRY "\t.reg .f32 %f<2>;\n\tmov.f32 %f1, 0f3F8000000;\n}\n",
         0, MB_ERR_PARSE, "malformed f32 literal", 7, 15},
        {"malformed 0d literal", ENTRY "\t.reg .f64 %fd1;\n\tmov.f64 %fd1, 0d3FF0;\n}\n", 0,
         MB_ERR_PARSE, "malformed f64 literal: expected 0d followed by 16 hex digits", 7, 16},
        {"decimal overflow", ENTRY "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, 18446744073709551616;\n}\n",
         0, MB_ERR_PARSE, "integer literal does not fit in 64 bits", 7, 16},
        {"hex overflow", ENTRY "\t.reg .b64 %rd<2>;\n\tmov.u64 %rd1, 0x10000000000000000;\n}\n", 0,
         MB_ERR_PARSE, "integer literal does not fit in 64 bits", 7, 16},
        {"bad digits", ENTRY "\t.reg .b32 %r1;\n\tmov.u32 %r1, 12abc;\n}\n", 0, MB_ERR_PARSE,
         "malformed integer literal", 7, 15},
        {"bad octal digit", ENTRY "\t.reg .b32 %r1;\n\tmov.u32 %r1, 08;\n}\n", 0, MB_ERR_PARSE,
         "malformed integer literal", 7, 15},
        {"empty hex", ENTRY "\t.reg .b32 %r1;\n\tmov.u32 %r1, 0x;\n}\n", 0, MB_ERR_PARSE,
         "malformed integer literal", 7, 15},
        {"lone dot", ENTRY "\t. reg\n}\n", 0, MB_ERR_PARSE,
         "expected a directive or modifier name after '.'", 6, 2},
        {"unexpected character", ENTRY "\tret; #\n}\n", 0, MB_ERR_PARSE,
         "unexpected character '#'", 6, 7},
        {"NUL byte", nul, sizeof(nul) - 1, MB_ERR_PARSE, "unexpected NUL byte", 6, 6},
        {"NUL byte in a line comment", nul_comment, sizeof(nul_comment) - 1, MB_ERR_PARSE,
         "unexpected NUL byte", 3, 9},
        {"NUL byte in a block comment", nul_block, sizeof(nul_block) - 1, MB_ERR_PARSE,
         "unexpected NUL byte", 4, 4},
        {"NUL byte in a @@DWARF line", nul_dwarf, sizeof(nul_dwarf) - 1, MB_ERR_PARSE,
         "unexpected NUL byte", 3, 14},
        {"NUL byte in a string", nul_string, sizeof(nul_string) - 1, MB_ERR_PARSE,
         "unexpected NUL byte", 3, 18},
        {"binary garbage", garbage, sizeof(garbage) - 1, MB_ERR_PARSE, "unexpected byte 0x7f", 1, 1},
        {"non-ASCII byte", utf8, sizeof(utf8) - 1, MB_ERR_PARSE, "unexpected byte 0xc3", 4, 1},
    };
    check_cases(cases, N(cases));
}

/* A NULL error record is allowed; the status still comes back. */
static void test_null_error_record(void **state)
{
    (void)state;
    mb_module *m = NULL;
    assert_int_equal(mb_ptx_parse("x", 1, NULL, &m, NULL), MB_ERR_PARSE);
    assert_null(m);
    mb_error err;
    mb_error_clear(&err);
    assert_int_equal(mb_ptx_parse("", 0, NULL, &m, &err), MB_ERR_PARSE);
    assert_string_equal(err.file, "<input>");
}

/* --------------------------------------------------------- fuzzing */

static char *read_example(const char *rel, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", MB_EXAMPLES_DIR, rel);
    char *text = NULL;
    mb_error err;
    if (mb_read_file(path, 1 << 20, &text, len, &err) != MB_OK) {
        char msg[2048];
        mb_error_format(&err, msg, sizeof(msg));
        fail_msg("%s", msg);
    }
    return text;
}

/* Parses `len` bytes of `text` (copied so that ASan sees reads past the
 * end): success must round-trip; failure must carry a location. Returns 1
 * on success. */
static int parse_cleanly(const char *text, size_t len, const char *what, size_t at)
{
    char *copy = malloc(len ? len : 1);
    assert_non_null(copy);
    memcpy(copy, text, len);
    mb_module *m = NULL;
    mb_error err;
    mb_error_clear(&err);
    mb_status st = mb_ptx_parse(copy, len, "fuzz.ptx", &m, &err);
    int ok = st == MB_OK;
    if (ok) {
        assert_non_null(m);
        mb_buf t1 = MB_BUF_INIT, t2 = MB_BUF_INIT;
        assert_int_equal(mb_ptx_print(m, &t1, &err), MB_OK);
        mb_module *m2 = NULL;
        if (mb_ptx_parse(t1.data, t1.len, "printed.ptx", &m2, &err) != MB_OK) {
            char msg[2048];
            mb_error_format(&err, msg, sizeof(msg));
            fail_msg("%s at %zu: printed text does not parse: %s", what, at, msg);
        }
        assert_int_equal(mb_ptx_print(m2, &t2, &err), MB_OK);
        if (strcmp(t1.data, t2.data) != 0)
            fail_msg("%s at %zu: print is not a fixpoint", what, at);
        mb_buf_free(&t1);
        mb_buf_free(&t2);
        mb_module_free(m2);
        mb_module_free(m);
    } else {
        assert_null(m);
        assert_int_equal(err.status, st);
        assert_true(st == MB_ERR_PARSE || st == MB_ERR_LIMIT || st == MB_ERR_UNSUPPORTED);
        assert_string_equal(err.file, "fuzz.ptx");
        assert_true(err.msg[0] != '\0');
        if (err.line < 1 || err.col < 1)
            fail_msg("%s at %zu: error without a location: %s", what, at, err.msg);
    }
    free(copy);
    return ok;
}

/* Every prefix of vecadd.ptx in steps of 7 bytes parses or fails cleanly. */
static void test_fuzz_prefixes(void **state)
{
    (void)state;
    static const char *const files[] = {"vecadd/vecadd.ptx", "devfunc/devfunc.ptx",
                                        "local_array/local_array.ptx"};
    static const size_t steps[] = {7, 11, 13};
    for (size_t f = 0; f < N(files); f++) {
        size_t len;
        char *text = read_example(files[f], &len);
        int successes = 0, failures = 0;
        for (size_t n = 0; n <= len; n += steps[f]) {
            if (parse_cleanly(text, n, files[f], n))
                successes++;
            else
                failures++;
        }
        /* The whole file parses; a prefix cut inside the first function does not. */
        assert_true(parse_cleanly(text, len, files[f], len));
        assert_true(failures > 0);
        (void)successes;
        free(text);
    }
}

/* One-byte mutations of vecadd.ptx: structural characters dropped in
 * everywhere. Nothing may crash; failures carry a location. */
static void test_fuzz_mutations(void **state)
{
    (void)state;
    size_t len;
    char *text = read_example("vecadd/vecadd.ptx", &len);
    static const char subst[] = {'{', '}', ';', ',', '[', ']', '%', '.', '\0', '"', '/', '@', '0',
                                 '<', '(', '!'};
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    int failures = 0;
    for (size_t i = 0; i < len; i += 3) {
        for (size_t k = 0; k < sizeof(subst); k++) {
            memcpy(buf, text, len);
            buf[i] = subst[k];
            failures += !parse_cleanly(buf, len, "vecadd mutation", i);
            /* deletion of byte i */
            memcpy(buf, text, i);
            memcpy(buf + i, text + i + 1, len - i - 1);
            if (k == 0)
                failures += !parse_cleanly(buf, len - 1, "vecadd deletion", i);
        }
    }
    assert_true(failures > 100);
    free(buf);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_truncated_input),
        cmocka_unit_test(test_undefined_and_undeclared),
        cmocka_unit_test(test_duplicates),
        cmocka_unit_test(test_bad_instructions),
        cmocka_unit_test(test_bad_types),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_module_structure),
        cmocka_unit_test(test_lexical_errors),
        cmocka_unit_test(test_null_error_record),
        cmocka_unit_test(test_fuzz_prefixes),
        cmocka_unit_test(test_fuzz_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
