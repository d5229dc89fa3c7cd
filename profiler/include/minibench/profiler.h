/*
 * minibench profiler: the PTX front end and everything that executes and
 * measures PTX.
 *
 * This header is the part's one public interface. Today it holds the PTX
 * module IR, the parser and printer, and the control-flow analyses
 * (basic blocks, dominators, post-dominators, natural loops). The
 * instruction, type, modifier and special-register tables are defined once
 * in the .def files beside this header and expanded here.
 */
#ifndef MINIBENCH_PROFILER_H
#define MINIBENCH_PROFILER_H

#include <minibench/util.h>

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ================================================================ tables */

/** PTX fundamental types (ptx_types.def). MB_TYPE_NONE means "no type". */
typedef enum mb_ptx_type {
    MB_TYPE_NONE = 0,
#define MB_PTX_TYPE(e, name, size, kind) MB_TYPE_##e,
#include <minibench/ptx_types.def>
#undef MB_PTX_TYPE
    MB_TYPE_COUNT
} mb_ptx_type;

/** What a type's bits mean. */
typedef enum mb_type_kind {
    MB_TYPE_KIND_B, /**< untyped bits */
    MB_TYPE_KIND_U, /**< unsigned integer */
    MB_TYPE_KIND_S, /**< signed integer */
    MB_TYPE_KIND_F, /**< floating point (possibly packed) */
    MB_TYPE_KIND_P, /**< predicate */
    MB_TYPE_KIND_O  /**< opaque handle (texref, samplerref, surfref) */
} mb_type_kind;

/** Name without the dot ("u32"); "" for MB_TYPE_NONE. */
const char *mb_type_name(mb_ptx_type type);
/** Size in bytes; 0 for predicates, opaque types and MB_TYPE_NONE. */
unsigned mb_type_size(mb_ptx_type type);
mb_type_kind mb_type_kind_of(mb_ptx_type type);
/** The type named `name` (without dot, `len` bytes), or MB_TYPE_NONE. */
mb_ptx_type mb_type_lookup(const char *name, size_t len);

/** PTX instruction modifiers (ptx_modifiers.def). */
typedef enum mb_ptx_mod {
    MB_MOD_NONE = 0,
#define MB_PTX_MOD(e, text) MB_MOD_##e,
#include <minibench/ptx_modifiers.def>
#undef MB_PTX_MOD
    MB_MOD_COUNT
} mb_ptx_mod;

/** Text without the dot ("rn"). */
const char *mb_mod_name(mb_ptx_mod mod);
/** The modifier spelled `text` (without dot), or MB_MOD_NONE. */
mb_ptx_mod mb_mod_lookup(const char *text, size_t len);

/** Instruction classes as the instruction mix and timing models see them. */
typedef enum mb_op_class {
    MB_CLASS_ALU,
    MB_CLASS_SFU,
    MB_CLASS_CONV,
    MB_CLASS_MEM,
    MB_CLASS_CTRL,
    MB_CLASS_SYNC,
    MB_CLASS_TENSOR,
    MB_CLASS_MISC,
    MB_CLASS_COUNT
} mb_op_class;

/** Opcode flags (bit set). */
enum {
    MB_OPF_N = 0,     /**< none */
    MB_OPF_D = 1 << 0, /**< first operand is a destination */
    MB_OPF_T = 1 << 1, /**< terminates a basic block */
    MB_OPF_M = 1 << 2, /**< touches memory */
    MB_OPF_B = 1 << 3, /**< barrier */
    MB_OPF_C = 1 << 4  /**< call */
};

/** PTX opcodes (ptx_opcodes.def): the first word of an instruction. */
typedef enum mb_opcode {
#define MB_PTX_OP(e, name, cls, minops, maxops, flags) MB_OP_##e,
#include <minibench/ptx_opcodes.def>
#undef MB_PTX_OP
    MB_OP_COUNT
} mb_opcode;

/** One row of the opcode table. */
typedef struct mb_opcode_info {
    const char *name;
    mb_op_class cls;
    unsigned char min_operands;
    unsigned char max_operands;
    unsigned flags; /**< MB_OPF_* */
} mb_opcode_info;

const mb_opcode_info *mb_opcode_get(mb_opcode op);
/** The opcode spelled `name`, or -1. */
int mb_opcode_lookup(const char *name, size_t len);
const char *mb_op_class_name(mb_op_class cls);

/** Special registers (ptx_sregs.def). */
typedef enum mb_sreg {
#define MB_PTX_SREG(e, name, form) MB_SREG_##e,
#include <minibench/ptx_sregs.def>
#undef MB_PTX_SREG
    MB_SREG_COUNT
} mb_sreg;

typedef enum mb_sreg_form { MB_SREG_FORM_SCALAR, MB_SREG_FORM_VEC, MB_SREG_FORM_INDEXED } mb_sreg_form;

/** Name with the percent sign ("%tid"). */
const char *mb_sreg_name(mb_sreg sreg);
mb_sreg_form mb_sreg_form_of(mb_sreg sreg);

/* =================================================================== IR */

/** State spaces. */
typedef enum mb_space {
    MB_SPACE_NONE = 0, /**< generic addressing */
    MB_SPACE_REG,
    MB_SPACE_SREG,
    MB_SPACE_CONST,
    MB_SPACE_GLOBAL,
    MB_SPACE_LOCAL,
    MB_SPACE_PARAM,
    MB_SPACE_SHARED,
    MB_SPACE_TEX,
    MB_SPACE_COUNT
} mb_space;

/** Directive text of a state space (".global"), "" for MB_SPACE_NONE. */
const char *mb_space_name(mb_space space);

/** Linkage of a module-level variable or function. */
typedef enum mb_linkage {
    MB_LINK_NONE = 0,
    MB_LINK_VISIBLE,
    MB_LINK_EXTERN,
    MB_LINK_WEAK,
    MB_LINK_COMMON
} mb_linkage;

/** What a symbol reference names. */
typedef enum mb_symkind {
    MB_SYM_NONE = 0,
    MB_SYM_GLOBAL_VAR, /**< index into mb_module.vars */
    MB_SYM_FUNC,       /**< index into mb_module.funcs */
    MB_SYM_LOCAL_VAR,  /**< index into the function's vars */
    MB_SYM_PARAM,      /**< index into the function's params */
    MB_SYM_RET         /**< index into the function's rets */
} mb_symkind;

/** One initialiser element of a variable. */
typedef enum mb_init_kind {
    MB_INIT_INT,         /**< integer: bits */
    MB_INIT_F32,         /**< 0fXXXXXXXX: bits */
    MB_INIT_F64,         /**< 0dXXXXXXXXXXXXXXXX or a decimal literal: bits */
    MB_INIT_ADDR,        /**< address of a symbol plus offset */
    MB_INIT_GENERIC_ADDR /**< generic(symbol) plus offset */
} mb_init_kind;

typedef struct mb_init {
    unsigned char kind;    /**< mb_init_kind */
    unsigned char negative; /**< integer written with a minus sign */
    unsigned char symkind; /**< MB_INIT_*ADDR: mb_symkind */
    uint32_t sym;
    uint64_t bits;  /**< value bits, or the offset for addresses */
} mb_init;

/** Variable attributes. */
enum { MB_VAR_MANAGED = 1 << 0 };

/**
 * A variable: module-level (.global, .const, .shared, extern shared), or
 * function-level (.local, .shared, .param inside a body, including the
 * parameter blocks nvcc writes around calls).
 */
typedef struct mb_var {
    const char *name;
    mb_space space;
    mb_ptx_type type;
    unsigned vec;      /**< 1, 2, 4 or 8 */
    mb_linkage linkage;
    unsigned align;    /**< bytes; 0 when not given */
    unsigned attrs;    /**< MB_VAR_* */
    unsigned ndims;    /**< 0 for a scalar */
    uint64_t dims[4];  /**< 0 in dims[0] means "[]": size from the initialiser or external */
    uint64_t nelems;   /**< elements (vectors count as one); 0 for an unsized extern array */
    uint64_t size;     /**< bytes */
    mb_init *init;     /**< NULL when absent */
    uint32_t ninit;
    int scope;         /**< function-level: scope index; module-level: -1 */
    int line, col;
} mb_var;

/** A kernel or function parameter (or a return value of a .func). */
typedef struct mb_param {
    const char *name; /**< "_" inside a .callprototype */
    mb_ptx_type type;
    unsigned vec;
    unsigned align;
    unsigned ndims;
    uint64_t dims[4];
    uint64_t size; /**< bytes */
    unsigned is_ptr;  /**< declared with .ptr */
    mb_space ptr_space; /**< .ptr's state space; MB_SPACE_NONE for generic */
    unsigned ptr_align; /**< .ptr .align N; 0 when not given */
    mb_space space; /**< MB_SPACE_PARAM, or MB_SPACE_REG for .reg parameters of a .func */
    int line, col;
} mb_param;

/** A virtual register. */
typedef struct mb_reg {
    const char *name;
    mb_ptx_type type;
    unsigned vec;
    int decl; /**< index of the declaration that made it */
} mb_reg;

/** A .reg declaration: one name, or the range form `%r<24>` (count 24). */
typedef struct mb_regdecl {
    const char *prefix; /**< "%r" for `%r<24>`, the full name otherwise */
    mb_ptx_type type;
    unsigned vec;
    uint32_t count;     /**< 0: a single register named `prefix` */
    uint32_t first_reg;
    int scope;
} mb_regdecl;

/** A brace-delimited scope in a function body; scope 0 is the body itself. */
typedef struct mb_scope {
    int parent;      /**< -1 for scope 0 */
    uint32_t begin;  /**< index of the first instruction inside */
    uint32_t end;    /**< one past the last instruction inside */
} mb_scope;

/** Kinds of label. */
typedef enum mb_label_kind {
    MB_LABEL_CODE,          /**< marks an instruction position */
    MB_LABEL_BRANCHTARGETS, /**< `name: .branchtargets L1, L2;` for brx.idx */
    MB_LABEL_CALLTARGETS,   /**< `name: .calltargets f1, f2;` */
    MB_LABEL_CALLPROTOTYPE  /**< `name: .callprototype (...) _ (...);` */
} mb_label_kind;

typedef struct mb_label {
    const char *name;
    mb_label_kind kind;
    uint32_t insn;     /**< CODE: index of the instruction it precedes (ninsns at the end) */
    int scope;
    int defined;       /**< 0 while only referenced */
    int line, col;     /**< definition, or first use while undefined */
    uint32_t *targets; /**< BRANCHTARGETS: label ids; CALLTARGETS: function ids */
    uint32_t ntargets;
    mb_param *proto_rets; /**< CALLPROTOTYPE signature */
    uint32_t nproto_rets;
    mb_param *proto_params;
    uint32_t nproto_params;
    int proto_noreturn;
} mb_label;

/** Operand kinds. */
typedef enum mb_operand_kind {
    MB_OPND_REG,    /**< u.reg */
    MB_OPND_SREG,   /**< u.sreg: special register with component or index */
    MB_OPND_IMM,    /**< integer literal: u.bits */
    MB_OPND_F32,    /**< 0fXXXXXXXX: u.bits */
    MB_OPND_F64,    /**< 0dXXXXXXXXXXXXXXXX or a decimal literal: u.bits */
    MB_OPND_SYMBOL, /**< a variable or function name plus `offset`: symkind, u.sym */
    MB_OPND_LABEL,  /**< u.label */
    MB_OPND_ADDR,   /**< [base+offset]: base_kind is REG, SYMBOL or IMM (absolute) */
    MB_OPND_VEC,    /**< {a, b, ...}: u.list */
    MB_OPND_BRACKET_LIST, /**< [a, b, ...] (texture and surface coordinates): u.list */
    MB_OPND_LIST,   /**< (a, b, ...) call argument/return lists: u.list */
    MB_OPND_SINK,   /**< _ */
    MB_OPND_PAIR    /**< %a|%b: u.pair */
} mb_operand_kind;

/** Operand flags. */
enum {
    MB_OPND_NOT = 1 << 0,    /**< !%p: logical negation of a predicate */
    MB_OPND_NEGLIT = 1 << 1  /**< integer literal written with a minus sign */
};

typedef struct mb_operand {
    unsigned char kind;      /**< mb_operand_kind */
    unsigned char flags;     /**< MB_OPND_* flags */
    unsigned char base_kind; /**< MB_OPND_ADDR: kind of the base */
    unsigned char symkind;   /**< MB_OPND_SYMBOL or a SYMBOL base: mb_symkind */
    int64_t offset;          /**< MB_OPND_ADDR and MB_OPND_SYMBOL */
    union {
        uint32_t reg;
        uint32_t sym;
        uint32_t label;
        uint64_t bits;
        struct {
            unsigned short id;   /**< mb_sreg */
            unsigned short comp; /**< VEC: 0 whole, 1..4 = x,y,z,w; INDEXED: the number (+1000 for the _64 form of %pm) */
        } sreg;
        struct {
            uint32_t first; /**< index into the function's operand pool */
            uint32_t count;
        } list;
        struct {
            uint32_t first;
            uint32_t second;
        } pair; /**< register indices, or MB_PAIR_SINK for '_' */
    } u;
} mb_operand;

/** A side of a %a|%b pair written as the sink '_'. */
#define MB_PAIR_SINK UINT32_MAX

/** Debug location from a .loc directive. */
typedef struct mb_loc {
    int file;
    int line;
    int col;
    const char *function_name; /**< `function_name` label of an inlined location, or NULL */
    int64_t function_name_offset;
    int inlined_file, inlined_line, inlined_col; /**< valid when function_name != NULL */
    uint32_t insn; /**< position of the directive: index of the instruction it precedes */
    int scope;     /**< scope of the function body it appears in */
} mb_loc;

enum { MB_MAX_SUFFIXES = 14 };

/** Encoding of a suffix entry: a modifier, or a type with this bit set. */
#define MB_SUFFIX_TYPE 0x8000u

typedef struct mb_insn {
    uint16_t opcode;   /**< mb_opcode */
    uint8_t nsuffix;
    uint8_t noperands;
    uint16_t suffix[MB_MAX_SUFFIXES]; /**< in source order: mb_ptx_mod, or mb_ptx_type | MB_SUFFIX_TYPE */
    int32_t guard;     /**< predicate register, or -1 */
    uint8_t guard_not; /**< @!%p */
    uint32_t operands; /**< index of the first operand in the function's pool */
    int32_t loc;       /**< index into the module's locs of the .loc in force, or -1 */
    int line, col;     /**< position of the instruction in the PTX file */
} mb_insn;

/** A `.pragma "..."` inside a body, placed before instruction `insn`. */
typedef struct mb_pragma {
    uint32_t insn;
    int scope;
    const char *text; /**< without quotes, as written */
} mb_pragma;

/** Performance-tuning directives of a function (0 = absent). */
typedef struct mb_perf {
    unsigned maxntid[3], nmaxntid;
    unsigned reqntid[3], nreqntid;
    unsigned minnctapersm;
    unsigned maxnctapersm;
    unsigned maxnreg;
    unsigned reqnctapercluster[3], nreqnctapercluster;
    unsigned maxclusterrank;
    unsigned explicitcluster;
    const char **pragmas; /**< function-level .pragma strings */
    unsigned npragmas;
} mb_perf;

typedef struct mb_function {
    const char *name;
    int is_entry;      /**< .entry (a kernel) rather than .func */
    mb_linkage linkage;
    int noreturn;
    int has_body;      /**< 0 for a prototype (declaration only) */
    mb_param *params;
    uint32_t nparams;
    mb_param *rets;
    uint32_t nrets;
    mb_perf perf;
    mb_reg *regs;
    uint32_t nregs;
    mb_regdecl *regdecls;
    uint32_t nregdecls;
    mb_var *vars;
    uint32_t nvars;
    mb_scope *scopes;
    uint32_t nscopes;
    mb_label *labels;
    uint32_t nlabels;
    mb_insn *insns;
    uint32_t ninsns;
    mb_operand *operands;
    uint32_t noperands;
    mb_pragma *pragmas;
    uint32_t npragmas;
    uint32_t loc_begin, loc_end; /**< this body's .loc directives: module locs [begin, end) */
    int line, col;
    /* capacities, owned by the parser */
    size_t cap_regs, cap_regdecls, cap_vars, cap_scopes, cap_labels, cap_insns, cap_operands,
        cap_pragmas;
    mb_strmap *reg_names;   /**< register name -> index */
    mb_strmap *label_names; /**< label name -> index */
} mb_function;

/** A `.file N "name" [, timestamp, size]` directive. */
typedef struct mb_file_entry {
    int index;
    const char *name;
    int has_meta;
    uint64_t timestamp, size;
} mb_file_entry;

/** A `.section` block, kept verbatim: debug information the executor ignores. */
typedef struct mb_section {
    const char *text; /**< from ".section" up to and including the closing brace */
} mb_section;

/** Module-level statements in source order (for printing). */
typedef enum mb_item_kind { MB_ITEM_VAR, MB_ITEM_FUNC, MB_ITEM_FILE, MB_ITEM_SECTION, MB_ITEM_PRAGMA } mb_item_kind;

typedef struct mb_item {
    mb_item_kind kind;
    uint32_t index;
    int prototype; /**< print as a declaration only: a function prototype, or an .extern variable a later definition replaced */
} mb_item;

/** A parsed PTX module. */
typedef struct mb_module {
    const char *filename;
    unsigned version_major, version_minor;
    const char **targets; /**< "sm_75", "debug", "texmode_independent", ... */
    uint32_t ntargets;
    unsigned address_size; /**< 32 or 64; 0 when the directive is absent */
    mb_var *vars;
    uint32_t nvars;
    mb_function *funcs;
    uint32_t nfuncs;
    mb_file_entry *files;
    uint32_t nfiles;
    mb_section *sections;
    uint32_t nsections;
    const char **pragmas; /**< module-level .pragma strings */
    uint32_t npragmas;
    mb_item *items;
    uint32_t nitems;
    mb_loc *locs;
    uint32_t nlocs;
    /* owned storage */
    mb_arena *arena;
    mb_strmap *symbols; /**< module-level name -> (symkind << 24) | index */
    size_t cap_vars, cap_funcs, cap_files, cap_sections, cap_pragmas, cap_items, cap_locs,
        cap_targets;
} mb_module;

/* =============================================================== parsing */

/** Limits that protect the front end from absurd input. */
enum {
    MB_PTX_MAX_FILE_BYTES = 512 * 1024 * 1024,
    MB_PTX_MAX_REGS_PER_DECL = 1 << 20
};
/** Largest variable the front end accepts (bytes): 64 GiB. */
#define MB_PTX_MAX_VAR_BYTES (UINT64_C(64) << 30)

/**
 * Parses PTX text. `filename` is used in error messages. On success
 * `*out` owns everything; free it with mb_module_free(). On failure `*out`
 * is NULL and `err` names file:line:col and what was expected.
 */
mb_status mb_ptx_parse(const char *text, size_t len, const char *filename, mb_module **out,
                       mb_error *err);

/** Reads and parses a PTX file. */
mb_status mb_ptx_parse_file(const char *path, mb_module **out, mb_error *err);

/** Frees a module. NULL is allowed. */
void mb_module_free(mb_module *module);

/** The function named `name`, or NULL. */
mb_function *mb_module_find_function(const mb_module *module, const char *name);

/* ============================================================== printing */

/**
 * Writes canonical PTX for the module: parsing the output gives the same
 * module, and printing that gives the same text. Fails only when out of
 * memory (MB_ERR_NOMEM).
 */
mb_status mb_ptx_print(const mb_module *module, mb_buf *out, mb_error *err);

/** Appends an instruction's opcode and suffixes as PTX writes them ("mul.wide.u16"). */
void mb_ptx_print_mnemonic(const mb_insn *insn, mb_buf *out);
/** Appends one instruction as PTX text (no indentation, no newline). */
void mb_ptx_print_insn(const mb_module *module, const mb_function *fn, const mb_insn *insn,
                       mb_buf *out);

/* ========================================================= instructions */

/** The instruction's operand `i` (0-based). */
static inline const mb_operand *mb_insn_operand(const mb_function *fn, const mb_insn *insn,
                                                unsigned i)
{
    return &fn->operands[insn->operands + i];
}

/** The `k`-th type suffix of the instruction (0-based), or MB_TYPE_NONE. */
mb_ptx_type mb_insn_type(const mb_insn *insn, unsigned k);
/** Nonzero when the instruction carries modifier `mod`. */
int mb_insn_has_mod(const mb_insn *insn, mb_ptx_mod mod);

/* ================================================================ graphs */

/*
 * minibench profiler: control-flow graph algorithms.
 *
 * A small directed-graph type in compressed (CSR) form and the analyses the
 * profiler, the SIMT executor and the DFSG need on a kernel's control-flow
 * graph: reverse postorder, dominators, post-dominators (reconvergence
 * points for the IPDOM stack) and natural loops classified into the three
 * patterns of the MiniBench paper (section 4.2.1, Fig. 11).
 *
 * Nothing here knows about PTX: nodes are basic-block numbers 0..n-1.
 * All traversals are iterative (no recursion), so graphs with hundreds of
 * thousands of nodes are fine. Costs are O(n + m) for building and for the
 * traversals, and near-linear for dominators, post-dominators and loops on
 * typical control-flow graphs (the dominator iteration of Cooper, Harvey and
 * Kennedy is quadratic only on pathological inputs; finding loops costs the
 * sum of the loop body sizes, i.e. O(n * nesting depth)).
 *
 * Conventions shared by every function below:
 *   - Fallible functions return an mb_status and, when `err` is not NULL,
 *     fill it with the same status and a message. MB_ERR_INVALID means a
 *     caller error (NULL pointer, node out of range, malformed idom array);
 *     MB_ERR_NOMEM means an allocation failed or a size computation would
 *     overflow.
 *   - On failure every output structure is left zeroed (and output arrays
 *     left in an unspecified state), and nothing is leaked, so calling the
 *     matching free function on it is always safe.
 *   - Results are deterministic: they depend only on the node numbering and
 *     the order of successors, never on addresses.
 */
/**
 * The largest node count a graph may have. One id is kept free so that the
 * virtual exit node of mb_postdominators() (id n) and the n+1 entries of the
 * start arrays stay representable as int. Larger counts fail with
 * MB_ERR_NOMEM.
 */
#define MB_GRAPH_MAX_NODES (INT_MAX - 1)

/**
 * A directed graph in compressed form. Node ids are 0..n-1.
 *
 * The successors of v are succ[succ_start[v] .. succ_start[v+1]), without
 * duplicates, in the order their edges first appeared in the edge list given
 * to mb_graph_build(). The predecessors of v are pred[pred_start[v] ..
 * pred_start[v+1]), without duplicates, in ascending order of node id.
 *
 * A graph built by mb_graph_build() owns its four arrays (all non-NULL, even
 * when n == 0 or there are no edges); release them with mb_graph_free(). The
 * analyses below only read the graph, so a caller may also fill the struct
 * by hand as long as the arrays are consistent (every id in 0..n-1, pred the
 * exact transpose of succ).
 */
typedef struct mb_graph {
    int n;
    int *succ_start; /* n+1 entries: successors of v are succ[succ_start[v] .. succ_start[v+1]) */
    int *succ;
    int *pred_start; /* same for predecessors */
    int *pred;
} mb_graph;

/** A directed edge from node `from` to node `to`. */
typedef struct mb_edge {
    int from, to;
} mb_edge;

/**
 * Builds `*g` with `n` nodes from `nedges` edges.
 *
 * Duplicate edges are kept once. Successor order follows the first
 * appearance of each edge in `edges`: a CFG builder lists a block's
 * fall-through edge before its branch target and that order is kept.
 * Self edges (v -> v) are allowed. `edges` may be NULL when `nedges` is 0.
 *
 * `*g` is overwritten without being freed first (it need not be
 * initialised). On success the caller owns the graph and must call
 * mb_graph_free(). On failure `*g` is zeroed and nothing is allocated.
 *
 * Errors: MB_ERR_INVALID when `g` is NULL, `n` or `nedges` is negative,
 * `edges` is NULL with `nedges` > 0, or an edge names a node outside 0..n-1
 * (the message names the edge's index and endpoints); MB_ERR_NOMEM when
 * `n` exceeds MB_GRAPH_MAX_NODES or an allocation fails.
 */
mb_status mb_graph_build(mb_graph *g, int n, const mb_edge *edges, int nedges, mb_error *err);

/** Frees the arrays of a graph and zeroes the struct. NULL and zeroed graphs are allowed. */
void mb_graph_free(mb_graph *g);

/**
 * Writes the nodes reachable from `entry` in reverse postorder into
 * `order` (which must have room for g->n entries) and returns their count.
 * Nodes unreachable from `entry` are absent. `order[0]` is `entry`.
 *
 * The depth-first search visits each node's successors in reverse of their
 * listed order, so that for structured code (fall-through listed first) the
 * reverse postorder follows the fall-through path first: for an if-then-else
 * diamond 0 -> {1, 2} -> 3 it is 0 1 2 3.
 *
 * Returns 0 when the graph is empty or `entry` is out of range, and -1 when
 * `g` or `order` is NULL or the scratch allocation (2 ints and 1 byte per
 * node) fails.
 */
int mb_graph_rpo(const mb_graph *g, int entry, int *order);

/**
 * Computes immediate dominators with the iterative algorithm of Cooper,
 * Harvey and Kennedy ("A Simple, Fast Dominance Algorithm") over the
 * reverse postorder of mb_graph_rpo().
 *
 * `idom` must have room for g->n entries and receives idom[entry] = entry,
 * idom[v] = the immediate dominator of every other node reachable from
 * `entry`, and idom[v] = -1 for nodes unreachable from `entry`.
 *
 * An empty graph (n == 0) succeeds and writes nothing, whatever `entry` is.
 *
 * Errors: MB_ERR_INVALID when `g` or `idom` is NULL or `entry` is outside
 * 0..n-1 (n > 0); MB_ERR_NOMEM when the scratch allocation fails.
 */
mb_status mb_dominators(const mb_graph *g, int entry, int *idom, mb_error *err);

/**
 * Computes immediate post-dominators, the reconvergence points of the SIMT
 * (IPDOM) stack.
 *
 * `is_exit[v]` nonzero marks nodes that leave the function (ret/exit). A
 * virtual exit node with id g->n is the successor of every exit node and
 * post-dominates everything; `ipdom` must have room for g->n entries and
 * receives, for every node v:
 *   - the nearest real node that lies on every path from v to an exit, or
 *   - g->n when no real node does, i.e. threads that diverge at v
 *     reconverge only at function exit (for example a branch whose two
 *     sides both return, or an exit node itself).
 *
 * The entry of the function is node 0 (the first basic block; this function
 * has no entry parameter). Two kinds of nodes have no meaningful
 * post-dominator and also get ipdom = g->n, which SIMT execution treats as
 * "reconverge at exit":
 *   - nodes that cannot reach any exit node (infinite loops, and nodes that
 *     only lead into them), and
 *   - nodes unreachable from node 0 (dead code).
 * For all other nodes the result is the standard post-dominator tree of the
 * graph augmented with the virtual exit (paths into infinite loops do not
 * count as paths to the exit).
 *
 * An empty graph (n == 0) succeeds and writes nothing.
 *
 * Errors: MB_ERR_INVALID when `g`, `ipdom` or (n > 0) `is_exit` is NULL;
 * MB_ERR_NOMEM when the graph is too large to add the virtual node
 * (edges + exit nodes above INT_MAX) or an allocation fails.
 */
mb_status mb_postdominators(const mb_graph *g, const unsigned char *is_exit, int *ipdom, mb_error *err);

/**
 * Returns 1 when `a` dominates `b` under the immediate-dominator array
 * `idom` as produced by mb_dominators() (every node dominates itself), 0
 * otherwise. Negative `a` or `b`, and nodes whose idom entry is -1
 * (unreachable), never dominate and are never dominated. Walks the
 * dominator tree upwards from `b`: O(depth).
 *
 * Only for arrays whose root points to itself. A post-dominator array from
 * mb_postdominators() has its root at the virtual node g->n, which has no
 * entry in the array; do not pass it here.
 */
int mb_dominates(const int *idom, int a, int b);

/** The three loop patterns of the MiniBench paper (section 4.2.1, Fig. 11). */
typedef enum mb_loop_kind {
    MB_LOOP_SELF,   /* a single block that branches to itself (paper Fig. 11a) */
    MB_LOOP_NORMAL, /* several blocks, a backward jump to the dominating header, no inner loops (Fig. 11b) */
    MB_LOOP_NESTED  /* a loop that contains other loops (Fig. 11c) */
} mb_loop_kind;

/**
 * One natural loop (all back edges to the same header merged). All arrays
 * are owned by the enclosing mb_loop_forest. `exits` is NULL when nexits is
 * 0 (an infinite loop); `blocks` and `latches` always have at least one
 * entry.
 */
typedef struct mb_loop {
    int header;       /* the target point: destination of the back edges */
    int *blocks;      /* the loop body, sorted ascending, header included */
    int nblocks;
    int *latches;     /* jump points: sources of back edges to the header, sorted ascending */
    int nlatches;
    mb_edge *exits;   /* edges from a body block to a node outside the body, sorted by (from, to) */
    int nexits;
    int parent;       /* index of the innermost enclosing loop, or -1 */
    int depth;        /* 1 for outermost loops */
    int nchildren;    /* number of loops whose parent is this one */
    mb_loop_kind kind;
} mb_loop;

/**
 * All natural loops of a graph.
 *
 * `loops` is in preorder of the loop-nesting tree: an enclosing loop comes
 * before the loops it contains (so loops[i].parent < i), the loops nested in
 * one loop (and the outermost loops) are visited in ascending order of
 * header id, and each loop is followed directly by all loops nested in it.
 *
 * `innermost` has g->n entries (NULL when n == 0): the index of the
 * innermost loop containing each node, or -1 for nodes outside every loop
 * (including nodes unreachable from the entry).
 *
 * `nirreducible` counts the retreating edges of a depth-first search from
 * the entry (edges to a node still on the search stack) whose target does
 * not dominate their source. It is 0 exactly when the reachable part of the
 * graph is reducible; cycles entered at more than one node produce no
 * natural loop and are only counted here. The search visits successors in
 * the order of mb_graph_rpo(), so the count is deterministic.
 */
typedef struct mb_loop_forest {
    mb_loop *loops;      /* sorted so that an enclosing loop comes before the loops it contains; among siblings by header id */
    int nloops;
    int *innermost;      /* n entries: index of the innermost loop containing each node, or -1 */
    int nirreducible;    /* retreating edges (in a DFS from entry) whose target does not dominate their source */
} mb_loop_forest;

/**
 * Finds the natural loops of `g` seen from `entry`.
 *
 * A back edge is an edge u -> h between nodes reachable from `entry` where
 * h dominates u. The natural loop of header h is h plus every reachable node
 * that can reach a source of a back edge to h without passing through h;
 * all back edges to one header form a single loop. Natural loops with
 * different headers are either disjoint or nested, which gives `parent`,
 * `depth`, `nchildren` and `innermost`. The kind is MB_LOOP_NESTED when the
 * loop contains another loop, otherwise MB_LOOP_SELF when its body is the
 * header alone, otherwise MB_LOOP_NORMAL.
 *
 * `idom` must come from mb_dominators() on the same graph and entry.
 * `*forest` is overwritten without being freed (it need not be
 * initialised). On success the caller owns it and must call
 * mb_loop_forest_free(); on failure it is zeroed. An empty graph (n == 0)
 * succeeds with no loops and a NULL `innermost`.
 *
 * Errors: MB_ERR_INVALID when `g`, `idom` or `forest` is NULL, `entry` is
 * outside 0..n-1 (n > 0), or `idom` is malformed (an entry outside -1..n-1,
 * or idom[entry] != entry); MB_ERR_NOMEM when an allocation fails.
 */
mb_status mb_find_loops(const mb_graph *g, int entry, const int *idom, mb_loop_forest *forest, mb_error *err);

/** Frees every loop's arrays and the forest's own arrays, and zeroes it. NULL and zeroed forests are allowed. */
void mb_loop_forest_free(mb_loop_forest *forest);

/** "self", "normal" or "nested"; "unknown" for a value outside the enum. The string is static. */
const char *mb_loop_kind_name(mb_loop_kind kind);



/* ========================================================= control flow */

/** A basic block: a run of instructions entered only at the top. */
typedef struct mb_block {
    uint32_t first;  /**< index of the first instruction */
    uint32_t ninsns; /**< 0 only for the empty block of an empty body or a label at the very end */
    int label;       /**< the code label naming the block, or -1 */
    int is_exit;     /**< some thread can leave the function here (ret, exit, trap, or falling off the end) */
} mb_block;

/**
 * The control-flow graph of one function with its analyses. Block 0 is the
 * entry. Edges list the fall-through successor before branch targets.
 */
typedef struct mb_cfg {
    const mb_function *fn;
    int nblocks;
    mb_block *blocks;
    int *block_of_insn;   /**< fn->ninsns entries */
    mb_graph graph;       /**< successors and predecessors of the blocks */
    int *idom;            /**< immediate dominators (-1: unreachable) */
    int *ipdom;           /**< immediate post-dominators; nblocks means "function exit" */
    mb_loop_forest loops; /**< natural loops, outermost first */
} mb_cfg;

/**
 * Splits `fn` into basic blocks and computes dominators, post-dominators
 * and natural loops. `fn` must have a body and must outlive the CFG. On
 * failure `cfg` is zeroed; mb_cfg_free() is safe either way.
 */
mb_status mb_cfg_build(const mb_function *fn, mb_cfg *cfg, mb_error *err);
void mb_cfg_free(mb_cfg *cfg);

/** The block's name for reports and graphs: its label, or "BB<n>". */
const char *mb_cfg_block_name(const mb_cfg *cfg, int block, char *buf, size_t size);

/** Static resource use of a kernel and the functions it calls. */
typedef struct mb_resources {
    uint32_t nparams;
    uint64_t param_bytes;
    uint32_t regs_by_size[5]; /**< declared registers: predicates, 16-, 32-, 64-, 128-bit (and wider) */
    uint32_t nregs;           /**< all declared registers */
    uint64_t shared_bytes;    /**< static .shared used by the kernel (own and module-level) */
    int dynamic_shared;       /**< uses an extern .shared array sized at launch */
    uint64_t local_bytes;     /**< .local variables (stack frames) of the kernel and callees */
    uint64_t const_bytes;     /**< module .const variables the kernel refers to */
    uint32_t ncallees;        /**< distinct functions reachable by calls */
    int has_indirect_calls;
} mb_resources;

/** Computes the static resources of function `fn` (usually a kernel). */
mb_status mb_function_resources(const mb_module *m, const mb_function *fn, mb_resources *res,
                                mb_error *err);


/* ============================================================ execution */

/**
 * Simulated device memory: a 64-bit address space of named allocations.
 * Global allocations live at and above MB_GLOBAL_BASE, separated by unmapped
 * guard gaps so that running off the end of one faults instead of reading
 * the next. Generic addresses in the shared and local windows below refer to
 * the current CTA's shared memory and the current thread's local memory.
 */
#define MB_GLOBAL_BASE UINT64_C(0x700000000000)
#define MB_SHARED_WINDOW UINT64_C(0x100000000000) /**< generic address of shared offset 0 */
#define MB_LOCAL_WINDOW UINT64_C(0x200000000000)  /**< generic address of local offset 0 */
#define MB_WINDOW_SIZE UINT64_C(0x100000000)      /**< 4 GiB per window */

typedef struct mb_memory mb_memory;

mb_status mb_memory_new(mb_memory **out, mb_error *err);
void mb_memory_free(mb_memory *mem);

/**
 * Allocates `bytes` (zero-filled) named `name` (copied; used in fault
 * reports) and returns its device address, aligned to 256 bytes. Allocations
 * larger than the limit given to mb_memory_set_limit() fail with MB_ERR_LIMIT.
 */
mb_status mb_memory_alloc(mb_memory *mem, uint64_t bytes, const char *name, uint64_t *addr,
                          mb_error *err);
/** Total bytes the memory may hold (default 16 GiB). */
void mb_memory_set_limit(mb_memory *mem, uint64_t bytes);
/** Host view of [addr, addr+bytes) when it lies inside one allocation, else NULL. */
void *mb_memory_host(mb_memory *mem, uint64_t addr, uint64_t bytes);
/**
 * Describes where `addr` lies for messages: "12 bytes into 'out' [0x..., +4096)",
 * "4 bytes past the end of 'out' [...]", or "not in any allocation".
 */
void mb_memory_describe(const mb_memory *mem, uint64_t addr, char *buf, size_t size);

/** A module decoded for execution, with its module variables placed in memory. */
typedef struct mb_program mb_program;

/**
 * Decodes every function of `module` and allocates its .global and .const
 * variables (with initialisers) in `mem`. Fails with MB_ERR_UNSUPPORTED
 * naming the PTX line of the first instruction form the executor does not
 * implement. `module` and `mem` must outlive the program.
 */
mb_status mb_program_new(const mb_module *module, mb_memory *mem, mb_program **out, mb_error *err);
void mb_program_free(mb_program *prog);
/** The module the program was decoded from. */
const mb_module *mb_program_module(const mb_program *prog);
/** Device address of a module variable, or 0 when it has none (.shared, .extern). */
uint64_t mb_program_var_address(const mb_program *prog, uint32_t var);

/** One kernel parameter's place in the parameter buffer. */
typedef struct mb_param_slot {
    uint32_t offset;
    uint32_t size;
} mb_param_slot;

/** Offsets of each parameter of kernel `fn` (nparams entries) and the buffer size. */
mb_status mb_kernel_param_layout(const mb_function *fn, mb_param_slot *slots, uint32_t *total,
                                 mb_error *err);

typedef struct mb_dim3 {
    uint32_t x, y, z;
} mb_dim3;

/** What an observer sees for each executed warp instruction. */
typedef struct mb_insn_event {
    const mb_function *fn;
    uint32_t insn;        /**< index into fn->insns */
    mb_dim3 ctaid;
    uint32_t warp;        /**< warp index within the CTA */
    uint32_t active;      /**< lanes active on the SIMT stack */
    uint32_t executed;    /**< active lanes whose guard predicate held */
    uint32_t taken;       /**< branches: lanes that took the branch */
    mb_space space;       /**< memory instructions: the resolved state space */
    uint32_t access_bytes; /**< memory instructions: bytes per lane */
    const uint64_t *addrs; /**< memory instructions: address per lane (valid in `executed`), else NULL */
    /** setp: operands a and b as the comparison read them, lane arrays valid in `executed`
     * during the call only: one uint32_t per lane for types of up to 32 bits (narrower values
     * zero-extended), one uint64_t per lane for 64-bit types; else NULL */
    const void *compared[2];
} mb_insn_event;

/** Callbacks for profilers and timing models. Observers run on one host thread. */
typedef struct mb_observer {
    void *ctx;
    void (*on_insn)(void *ctx, const mb_insn_event *ev);
    /** Optional (NULL: every instruction is observed). Asked once per launch for each function
     * with a body: one byte per instruction of `fn`, nonzero for the instructions whose events
     * the observer needs; a NULL answer means all of them. mb_launch() then calls on_insn for
     * those instructions only; the stepper (mb_step_*) still delivers every instruction. */
    const uint8_t *(*wanted)(void *ctx, const mb_function *fn);
} mb_observer;

typedef struct mb_launch_config {
    const mb_function *kernel; /**< an .entry of the program's module */
    mb_dim3 grid, block;
    uint32_t dynamic_shared;   /**< bytes of extern .shared memory */
    const void *params;        /**< parameter buffer laid out by mb_kernel_param_layout() */
    uint32_t param_bytes;
} mb_launch_config;

typedef struct mb_exec_options {
    unsigned threads;        /**< host threads running CTAs in parallel; 0 means 1 */
    uint64_t max_warp_insts; /**< stop with a fault after this many warp instructions; 0: no limit */
    uint32_t stack_bytes;    /**< per-thread stack for call frames and local memory; 0: automatic */
    const mb_observer *observer; /**< NULL: none; with an observer CTAs run on one thread */
} mb_exec_options;

typedef struct mb_exec_stats {
    uint64_t ctas, warps, threads;
    uint64_t warp_insts;   /**< warp instructions issued (including fully predicated-off ones) */
    uint64_t thread_insts; /**< sum over warp instructions of the SIMT-active lanes */
} mb_exec_stats;

/**
 * Runs one kernel launch to completion. A fault in the simulated program
 * (out-of-bounds or misaligned access, barrier divergence or deadlock,
 * unsupported instruction, instruction budget) stops the launch and returns
 * MB_ERR_FAULT with a report naming the kernel, block, thread, PTX
 * file:line and address; `err->file`/`line` are the PTX location. Statistics
 * are accumulated into `stats` (not reset).
 */
mb_status mb_launch(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                    const mb_exec_options *opt, mb_exec_stats *stats, mb_error *err);

/* ========================================================== stepping a launch */

/**
 * A launch executed one warp instruction at a time, for timing models that
 * decide when each warp issues (the cycle simulator). The caller instantiates
 * CTAs when it wants them (by linear index, x fastest), steps any ready warp
 * of any live CTA, and releases CTAs when all their warps are done. Execution
 * is the same as mb_launch(): same handlers, SIMT stack, barriers and fault
 * reports; only the interleaving of warps and CTAs is the caller's.
 */
typedef struct mb_stepper mb_stepper;
/** One instantiated CTA of a stepped launch. */
typedef struct mb_step_cta mb_step_cta;

/** What a warp can do next. */
typedef enum mb_warp_state {
    MB_WARP_READY,   /**< can execute its next instruction */
    MB_WARP_BARRIER, /**< waits at a barrier */
    MB_WARP_DONE     /**< every lane exited */
} mb_warp_state;

/** Event flags of a step. */
enum {
    MB_STEP_MEMORY = 1 << 0,   /**< touched memory: space, access_bytes, addrs are valid */
    MB_STEP_BARRIER = 1 << 1,  /**< the warp now waits at a barrier */
    MB_STEP_RELEASED = 1 << 2, /**< a barrier of the CTA released (possibly this warp too) */
    MB_STEP_EXITED = 1 << 3,   /**< the warp finished */
    MB_STEP_DIVERGED = 1 << 4  /**< the active mask changed (branch, reconvergence, exit of lanes) */
};

/** One executed warp instruction. Pointers are valid until the next step of the CTA. */
typedef struct mb_step_event {
    uint32_t pc;           /**< code index executed (see mb_program_code_insn()) */
    uint32_t next_pc;      /**< code index the warp executes next (when not done) */
    const mb_function *fn;
    uint32_t insn;         /**< index into fn->insns; fn->ninsns for a function's implicit end */
    uint32_t active;       /**< lanes active on the SIMT stack */
    uint32_t executed;     /**< active lanes whose guard held */
    uint32_t taken;        /**< branches: lanes that took it */
    uint32_t flags;        /**< MB_STEP_* */
    mb_space space;        /**< memory: resolved state space */
    uint32_t access_bytes; /**< memory: bytes per lane (a vector access counts all its elements) */
    const uint64_t *addrs; /**< memory: per-lane address (global: device address; shared, local,
                                param: offset in that space), valid in `executed` */
} mb_step_event;

/**
 * Prepares stepping launch `cfg` (checked like mb_launch()). `opt` may be NULL;
 * its threads field is ignored (stepping is single-threaded), its observer
 * is called for every step as mb_launch() would.
 */
mb_status mb_stepper_new(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                         const mb_exec_options *opt, mb_stepper **out, mb_error *err);
/** Frees the stepper and every CTA still instantiated. */
void mb_stepper_free(mb_stepper *s);
/** CTAs in the grid. */
uint64_t mb_stepper_nctas(const mb_stepper *s);
/** Warps per CTA. */
uint32_t mb_stepper_cta_warps(const mb_stepper *s);
/** Shared memory bytes per CTA (static plus dynamic). */
uint32_t mb_stepper_shared_bytes(const mb_stepper *s);
/** Instantiates CTA number `index` (x fastest) with all its warps ready at the kernel entry. */
mb_status mb_stepper_cta_start(mb_stepper *s, uint64_t index, mb_step_cta **out, mb_error *err);
/** Releases a CTA (finished or not), adding its counts to the stepper's statistics. */
void mb_stepper_cta_finish(mb_stepper *s, mb_step_cta *cta);
/** The CTA's linear index and block index. */
uint64_t mb_step_cta_index(const mb_step_cta *cta);
/** State of warp `warp` of the CTA. */
mb_warp_state mb_step_warp_state(const mb_step_cta *cta, uint32_t warp);
/** Code index of the next instruction of a ready warp. */
uint32_t mb_step_warp_pc(const mb_step_cta *cta, uint32_t warp);
/** Warps of the CTA not yet done. */
uint32_t mb_step_cta_live_warps(const mb_step_cta *cta);
/**
 * Executes the next instruction of ready warp `warp` and describes it in `ev`.
 * A fault in the simulated program returns MB_ERR_FAULT with the same report
 * as mb_launch(); a barrier no warp can ever reach is a deadlock fault,
 * reported on the step that leaves no warp of the CTA able to run.
 */
mb_status mb_step_warp(mb_step_cta *cta, uint32_t warp, mb_step_event *ev, mb_error *err);
/** Statistics of the CTAs finished so far (as mb_launch() reports them). */
void mb_stepper_stats(const mb_stepper *s, mb_exec_stats *stats);

/** Instructions in the program's code (all functions plus one implicit end each). */
uint32_t mb_program_ncode(const mb_program *prog);
/**
 * The function and instruction index of code index `pc`; the instruction
 * index is fn->ninsns for a function's implicit end. Returns NULL when pc is
 * out of range.
 */
const mb_function *mb_program_code_insn(const mb_program *prog, uint32_t pc, uint32_t *insn);


/* ======================================================= launch manifests */

/**
 * A launch manifest (JSON, docs/formats.md): named buffers with their size
 * and initialisation, and launches in order, each naming a kernel (exactly
 * or by /regex/), its grid, block, dynamic shared memory and arguments.
 */
typedef struct mb_manifest mb_manifest;

/** Parses a manifest; errors name the file and line:column (syntax) or the JSON path (content). */
mb_status mb_manifest_parse(const char *text, size_t len, const char *name, mb_manifest **out,
                            mb_error *err);
mb_status mb_manifest_load(const char *path, mb_manifest **out, mb_error *err);
void mb_manifest_free(mb_manifest *manifest);
/** Number of launches. */
uint32_t mb_manifest_nlaunches(const mb_manifest *manifest);

/** A manifest bound to a program: its buffers allocated and initialised in device memory. */
typedef struct mb_manifest_run mb_manifest_run;

/**
 * Resolves every launch's kernel and arguments against `prog`, allocates and
 * initialises the buffers in `mem` (file initialisers are read relative to
 * the manifest's directory). Fails, naming the launch and argument, when a
 * kernel is missing or ambiguous, an argument does not fit its parameter,
 * or a buffer is larger than the memory allows.
 */
mb_status mb_manifest_bind(const mb_manifest *manifest, mb_program *prog, mb_memory *mem,
                           mb_manifest_run **out, mb_error *err);
void mb_manifest_run_free(mb_manifest_run *run);
/** The launch configuration of launch `i` (valid until the run is freed). */
const mb_launch_config *mb_manifest_launch(const mb_manifest_run *run, uint32_t i);
/** Device address and size of buffer `name`; 0 when there is no such buffer. */
uint64_t mb_manifest_buffer(const mb_manifest_run *run, const char *name, uint64_t *bytes);
/**
 * Writes every output buffer to `dir` as <name>.bin plus index.json (name,
 * type, count, bytes, file, FNV-1a 64 checksum), atomically per file.
 */
mb_status mb_manifest_write_outputs(const mb_manifest_run *run, const char *dir, mb_error *err);


/* ============================================================== profiles */

/**
 * A profile of one kernel launch (MiniBench paper section 4.1): per basic
 * block and edge counts (the DFSG), loops with trip-count distributions,
 * branches, memory instructions (coalescing, bank conflicts, affine address
 * models), dependence distances and the instruction mix. Built by attaching
 * the profile's observer to mb_launch().
 */
typedef struct mb_profile mb_profile;

typedef struct mb_profile_options {
    uint32_t banks;      /**< shared-memory banks; 0 means 32 */
    uint32_t bank_bytes; /**< bytes per bank; 0 means 4 */
    /** 1: memory requests are counted in the launch's thread; 2: a second
     *  thread counts them while the launch runs on (the same profile); 0: 2
     *  when more than one CPU is online, else 1 */
    uint32_t threads;
} mb_profile_options;

/**
 * Prepares a profile of launch `cfg` of `prog`. The static analyses of the
 * program's functions are made by its first profile and kept with the
 * program for the later ones, so a program's profiles are created from one
 * thread at a time and freed before the program.
 */
mb_status mb_profile_new(mb_program *prog, mb_memory *mem, const mb_launch_config *cfg,
                         const mb_profile_options *opt, mb_profile **out, mb_error *err);
/** The observer to put in mb_exec_options for the launch. */
const mb_observer *mb_profile_observer(mb_profile *p);
/** Completes the profile after mb_launch() returned MB_OK with `stats`. */
mb_status mb_profile_finish(mb_profile *p, const mb_exec_stats *stats, mb_error *err);
void mb_profile_free(mb_profile *p);
/** Writes the profile as JSON (docs/formats.md: <kernel>.<n>.profile.json). */
mb_status mb_profile_write_json(const mb_profile *p, mb_buf *out, mb_error *err);

/**
 * The launch's input: each buffer a pointer parameter points into, whole, as
 * it was when mb_profile_new() was called (before the launch changed it).
 * The clone is run on these bytes, so it reads the values the original read.
 */
typedef struct mb_profile_input {
    const char *buffer;  /**< the allocation's name */
    uint64_t address;    /**< its device address */
    uint64_t bytes;
    const uint8_t *data;
    uint64_t fnv1a64;    /**< FNV-1a 64 of the bytes */
} mb_profile_input;

/** Inputs are recorded only while their bytes total at most this. */
#define MB_PROFILE_INPUT_LIMIT (UINT64_C(256) << 20)

uint32_t mb_profile_ninputs(const mb_profile *p);
const mb_profile_input *mb_profile_get_input(const mb_profile *p, uint32_t k);
/** Bytes of input left unrecorded because they exceed MB_PROFILE_INPUT_LIMIT (0: all recorded). */
uint64_t mb_profile_inputs_omitted(const mb_profile *p);
/**
 * The warning for a launch whose input was not recorded, naming launch n of
 * `kernel`, in `buf`; 0 (and `buf` untouched) when every input was.
 */
int mb_profile_inputs_warning(const mb_profile *p, const char *kernel, uint64_t n, char *buf, size_t size);
/**
 * The file name input k is written to beside <kernel>.<n>.profile.json:
 * "<kernel>.<n>.input<k>.bin" (docs/formats.md). Returns 0 when it does not fit in `size`.
 */
int mb_profile_input_file(const char *kernel, uint64_t n, uint32_t k, char *buf, size_t size);
/** Writes every input into `dir` under those names, each atomically. */
mb_status mb_profile_write_inputs(const mb_profile *p, const char *dir, const char *kernel, uint64_t n,
                                  mb_error *err);

/** DFSG counts of one basic block (thread counts summed over all threads). */
typedef struct mb_block_profile {
    uint64_t ecount;     /**< executions summed over threads */
    uint64_t lcount;     /**< executions in loop iterations after the first of the block's innermost loop */
    uint64_t scount;     /**< barriers executed in the block, summed over threads */
    uint64_t threads;    /**< distinct threads that executed the block */
    uint64_t warp_execs; /**< warp-level executions */
    uint64_t entries;    /**< threads entering the function here (the entry block: starts or calls) */
    uint64_t exits;      /**< threads leaving the function from this block */
} mb_block_profile;

/** DFSG counts of one control-flow edge (from, to are block indices). */
typedef struct mb_edge_profile {
    int from, to;
    uint64_t count;   /**< traversals summed over threads: the paper's OECount of `from` and IECount of `to` */
    uint64_t threads; /**< TCount: distinct threads that took the edge at least once */
    int back;         /**< a back edge of a natural loop */
} mb_edge_profile;

/** The DFSG of one function executed by the launch. */
typedef struct mb_func_profile {
    const mb_function *fn;
    const mb_cfg *cfg;
    const mb_block_profile *blocks; /**< cfg->nblocks */
    const mb_edge_profile *edges;   /**< in CFG successor order */
    uint32_t nedges;
    uint64_t calls;                 /**< threads that entered the function (the launch's threads for the kernel) */
} mb_func_profile;

/** Functions with profiles: index 0 is the kernel, then every function it called
 *  (available once mb_profile_finish() succeeded; NULL before). */
uint32_t mb_profile_nfuncs(const mb_profile *p);
const mb_func_profile *mb_profile_func(const mb_profile *p, uint32_t i);
/** The opcode chain of a block: "ld.global.f32 add.f32 ..." (opcode and types of each instruction). */
void mb_profile_block_chain(const mb_function *fn, const mb_cfg *cfg, int block, mb_buf *out);

/** Base address, size and name of the allocation containing `addr` (0 when none). */
uint64_t mb_memory_allocation(const mb_memory *mem, uint64_t addr, uint64_t *size, const char **name);

/* ==================================================== CUDA runtime hooks */
/*
 * What a CUDA runtime replacement (cudart/) needs beyond launches: host
 * memory the device sees at the host's own addresses (pinned, mapped and
 * managed memory), freeing allocations, and texture objects.
 */

/**
 * Makes the host range [host, host+bytes) device memory at the same address
 * (`name` appears in fault reports). The caller keeps ownership of the host
 * memory and must release the mapping before freeing it. Fails with
 * MB_ERR_INVALID when the range is empty or overlaps an allocation, and with
 * MB_ERR_UNSUPPORTED when it overlaps the shared/local generic windows.
 */
mb_status mb_memory_map_host(mb_memory *mem, void *host, uint64_t bytes, const char *name,
                             mb_error *err);
/** Frees the allocation (or host mapping) starting exactly at `addr`; MB_ERR_INVALID otherwise. */
mb_status mb_memory_release(mb_memory *mem, uint64_t addr, mb_error *err);

/** What a texel's channels hold. */
typedef enum mb_texel_kind { MB_TEXEL_SIGNED, MB_TEXEL_UNSIGNED, MB_TEXEL_FLOAT } mb_texel_kind;
/** How coordinates outside the texture are resolved. */
typedef enum mb_tex_address { MB_TEX_WRAP, MB_TEX_CLAMP, MB_TEX_MIRROR, MB_TEX_BORDER } mb_tex_address;

/** A texture object over linear (height 1) or pitched 2D device memory. */
typedef struct mb_texture {
    uint64_t addr;          /**< device address of texel (0,0) */
    uint64_t width, height; /**< in texels */
    uint64_t pitch;         /**< bytes from one row to the next */
    unsigned channels;      /**< 1, 2 or 4 */
    unsigned channel_bits;  /**< 8, 16 or 32 (float: 16 = half, 32) */
    mb_texel_kind kind;
    int read_normalized;    /**< integer texels read as floats in [0,1] ([-1,1] signed) */
    int normalized_coords;  /**< float coordinates in [0,1) span the texture */
    int filter_linear;      /**< bilinear filtering of float results (8-bit weights) */
    mb_tex_address address[2]; /**< x and y */
    float border[4];        /**< MB_TEX_BORDER's value */
} mb_texture;

/**
 * Binds texture object `handle` (the 64-bit value kernels receive) to `tex`
 * for every later launch using `mem`; rebinding a handle replaces it.
 * tex.1d and tex.2d fetches through the handle read the texture (docs/executor.md).
 * Fails with MB_ERR_INVALID for handle 0, an empty texture, a pitch smaller
 * than a row or memory outside one allocation, MB_ERR_UNSUPPORTED for other
 * texel formats.
 */
mb_status mb_memory_bind_texture(mb_memory *mem, uint64_t handle, const mb_texture *tex,
                                 mb_error *err);
/** Forgets texture object `handle` (fetches through it then fault). */
void mb_memory_unbind_texture(mb_memory *mem, uint64_t handle);

#ifdef __cplusplus
}
#endif

#endif /* MINIBENCH_PROFILER_H */
