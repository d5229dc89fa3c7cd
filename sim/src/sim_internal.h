/* Internals of the cycle simulator shared by its files. docs/sim.md explains
 * the model; this header holds its data structures. */
#ifndef MB_SIM_INTERNAL_H
#define MB_SIM_INTERNAL_H

#include <minibench/sim.h>

#include <stdint.h>

/* ------------------------------------------------------------- config */

enum { SIM_STR_MAX = 256 };

struct mb_sim_config {
#define SIM_OPT_INT(field) int64_t field;
#define SIM_OPT_REAL(field) double field;
#define SIM_OPT_STR(field) char field[SIM_STR_MAX];
#define SIM_OPT(name, kind, field, def, help) SIM_OPT_##kind(field)
#include "sim_options.def"
#undef SIM_OPT
#undef SIM_OPT_INT
#undef SIM_OPT_REAL
#undef SIM_OPT_STR
};

/* A cache geometry parsed from GPGPU-Sim's cache option string. */
typedef struct sim_cache_geom {
    int present;
    int sectored;      /* 'S': 32-byte sectors fill and miss independently */
    uint32_t sets, line, assoc;
    char rep;          /* L (LRU) or F (FIFO) */
    char write;        /* T write-through, B write-back, R read-only, L local write-back / global write-through */
    char alloc;        /* m on miss, f on fill, s streaming */
    char write_alloc;  /* N none, W write-allocate, F fetch-on-write, L lazy fetch-on-write */
    uint32_t mshr_entries, mshr_merge;
    uint32_t miss_queue;
} sim_cache_geom;

/* Latency/initiation classes of the functional-unit table. */
enum { LAT_ADD, LAT_MAX, LAT_MUL, LAT_MAD, LAT_DIV, LAT_SHFL, LAT_N };

typedef struct sim_derived {
    uint32_t max_threads, warp_size;
    uint32_t sched_kind;      /* SCHED_* */
    uint32_t two_level_active;
    uint32_t lat_int[LAT_N], ii_int[LAT_N];
    uint32_t lat_fp[LAT_N], ii_fp[LAT_N];
    uint32_t lat_dp[LAT_N], ii_dp[LAT_N];
    sim_cache_geom dl1, cl1, dl2;
    uint32_t nbk, tCCD, tRRD, tRCD, tRAS, tRP, tRC, tCL, tWL, tCDLR, tWR;
    double core_mhz, icnt_mhz, l2_mhz, dram_mhz;
} sim_derived;

enum { SCHED_LRR, SCHED_GTO, SCHED_TWO_LEVEL };

/* Validates `cfg` and fills the structured values. `where` names the config in errors. */
mb_status sim_config_derive(const mb_sim_config *cfg, sim_derived *d, const char *where, mb_error *err);

/* ------------------------------------------------------ static insns */

/* Timing side of one static instruction (one per executor code index). */
enum { KIND_ALU, KIND_MEM, KIND_BAR, KIND_CTRL };
enum { SIM_MAX_SRC = 12, SIM_MAX_DST = 4 };

typedef struct sim_insn {
    uint8_t unit, kind; /* unit: mb_sim_unit */
    uint8_t nsrc, ndst;
    uint8_t is_store, is_atomic;
    uint16_t latency;   /* cycles until the result can be read */
    uint16_t interval;  /* cycles the unit is occupied */
    uint16_t src[SIM_MAX_SRC], dst[SIM_MAX_DST]; /* scoreboard slots */
} sim_insn;

/* ------------------------------------------------------------ timing */

/* Memory-side time is counted in ticks, SIM_TICKS per core cycle, so the
 * slower and faster clock domains keep their fractional ratios. */
enum { SIM_TICKS = 64 };
#define SIM_NEVER UINT64_MAX

/* Why a scoreboard slot is not ready (a register's pending producer). */
enum { WHY_COMPUTE, WHY_L1, WHY_L2, WHY_DRAM };

typedef struct sim_warp {
    mb_step_cta *cta;
    uint32_t wid;          /* warp index in its CTA */
    uint32_t cta_slot;     /* SM CTA slot */
    uint64_t age;          /* dispatch order, for greedy-then-oldest */
    int live;              /* holds a warp that has not finished */
    int valid_next;        /* cached ready_at / why are current */
    uint64_t ready_at;     /* cycle its next instruction's operands are ready (SIM_NEVER: waiting on memory) */
    uint8_t why;           /* WHY_* of the operand it waits for */
    uint8_t two_level_active;
    const sim_insn *next;
    uint64_t *reg_ready;   /* per scoreboard slot */
    uint8_t *reg_why;
    uint32_t reg_cap;      /* slots allocated in reg_ready and reg_why */
    uint32_t pending_loads;
} sim_warp;

typedef struct sim_sched {
    uint32_t *warps;      /* SM warp slots, in age order */
    uint32_t nwarps;
    uint32_t last;        /* position of the last issued warp */
    uint8_t last_cat;     /* category of the latest cycle this scheduler was looked at */
    uint64_t stall[MB_SIM_STALL_COUNT];
} sim_sched;

typedef struct sim_cache {
    sim_cache_geom g;
    uint64_t *tag;       /* sets*assoc: line address + 1 (0: invalid) */
    uint64_t *stamp;     /* LRU or FIFO stamp */
    uint8_t *valid;      /* sector mask present */
    uint8_t *pending;    /* sector mask being fetched */
    uint8_t *dirty;
    uint64_t clock;
    uint32_t sectors, sector_bytes;
} sim_cache;

/* An in-flight memory transaction. */
typedef struct sim_req {
    uint64_t addr;       /* 128-byte-aligned address; `sectors` are its 32-byte sectors */
    uint64_t l1_line;    /* L1 or constant-cache line it fills (SM side) */
    uint8_t sectors;     /* sector mask within the line */
    uint8_t is_write, is_atomic, from_const;
    uint16_t bytes;      /* data bytes moved */
    uint16_t sm;
    uint32_t load;       /* waiting load instance (UINT32_MAX none) */
    uint32_t atomic_ops; /* lane operations performed at L2 */
    uint32_t next;       /* intrusive list link (MSHR waiters, DRAM queue, free list) */
    uint32_t channel, slice, bank;
    uint64_t row;
    uint64_t arrival;    /* ticks */
    uint8_t why;         /* deepest level that served it so far */
    uint8_t holds_mshr;  /* counted in its SM's mshr_used until it is answered */
} sim_req;

/* A load waiting for its transactions. */
typedef struct sim_load {
    uint32_t warp;       /* SM warp slot */
    uint32_t remaining;
    uint8_t why;
    uint8_t ndst;
    uint16_t dst[SIM_MAX_DST];
    uint32_t next_free;
} sim_load;

/* An L1 MSHR: a line being fetched and the requests merged into it. */
typedef struct sim_mshr {
    uint64_t addr;
    uint32_t waiters;    /* list of sim_req (first is the one sent) */
    uint32_t merged;
    int used;
} sim_mshr;

typedef struct sim_sm {
    uint32_t id;
    sim_warp *warps;
    uint32_t nwarp_slots;
    uint32_t live_warps;
    uint32_t ctas, threads, regs, shared;
    mb_step_cta **cta_slots;
    uint32_t *cta_live;
    sim_sched *sched;
    uint64_t *unit_free;       /* per unit instance: cycle it accepts the next instruction */
    uint32_t unit_first[MB_SIM_UNIT_COUNT], unit_count[MB_SIM_UNIT_COUNT];
    sim_cache l1, cc;
    sim_mshr *mshr;
    uint32_t mshr_used;
    uint32_t missq_head, missq_tail, missq_len; /* FIFO of sim_req waiting for an MSHR / the port */
    uint64_t port_free;        /* ticks: interconnect injection port */
    sim_load *loads;
    uint32_t nloads, free_load;
    uint64_t next_wake;        /* cycle: earliest a warp may become issuable without an event */
    uint64_t acct;             /* first cycle not yet in its statistics */
    uint64_t age;
} sim_sm;

typedef struct sim_dram_bank {
    uint64_t open_row;   /* row + 1, 0: closed */
    uint64_t ready;      /* ticks: accepts a command */
    uint64_t act_time;   /* ticks: last activate */
    uint64_t data_end;   /* ticks: end of its last data transfer (precharge waits for it) */
} sim_dram_bank;

typedef struct sim_channel {
    sim_dram_bank *banks;
    uint32_t q_head, q_len; /* queued requests, arrival order (linked by next) */
    uint64_t bus_free;   /* ticks */
    int sched_pending;
    uint64_t port_free;  /* ticks: interconnect return port of the partition */
} sim_channel;

typedef struct sim_slice {
    sim_cache l2;
    uint64_t port_free;  /* ticks */
    /* L2 MSHR: pending line fetches and their waiters */
    uint64_t *mshr_addr;
    uint32_t *mshr_waiters;
    uint32_t nmshr, cap_mshr;
} sim_slice;

/* Events of the memory system. */
enum { EV_L2_ARRIVE, EV_DRAM_ARRIVE, EV_DRAM_SCHED, EV_DRAM_DONE, EV_SM_RESPONSE };
typedef struct sim_event {
    uint64_t tick;
    uint64_t seq;
    uint32_t kind, arg;
} sim_event;

struct mb_sim {
    mb_sim_config cfg;
    sim_derived d;
    mb_sim_stats stats;
    uint64_t *sched_stall;  /* per SM and scheduler, MB_SIM_STALL_COUNT each (across launches) */
    uint32_t nsm;
    sim_sm *sms;
    uint64_t *awake;        /* bit i: SM i's next_wake is not SIM_NEVER (see sim_set_wake) */
    sim_slice *slices;
    sim_channel *channels;
    uint32_t nslices;
    /* memory requests */
    sim_req *reqs;
    uint32_t nreqs, cap_reqs, free_req;
    /* event heap */
    sim_event *heap;
    uint32_t nheap, cap_heap;
    uint64_t seq;
    /* clocks in ticks per domain cycle */
    uint64_t t_icnt, t_l2, t_dram;
    uint64_t now;           /* current core cycle */
    /* the launch being simulated */
    mb_stepper *stepper;
    const mb_program *prog;
    sim_insn *insns;
    uint32_t ninsns;
    uint32_t nslots;        /* scoreboard slots per warp */
    uint32_t warps_per_cta, threads_per_cta, regs_per_cta, shared_per_cta;
    uint64_t next_cta, nctas, ctas_done;
    uint32_t next_sm;
    mb_status launch_status;
    mb_error *err;
    mb_sim_progress_fn progress;
    void *progress_ctx;
    uint64_t progress_every, progress_next;
    uint32_t nsched_total;
};

/* Sets when `sm` is looked at next. Every write of next_wake goes through
 * here, so that the cycle loop visits only the SMs in `awake`, in index
 * order, rather than every SM of a large GPU every cycle. */
static inline void sim_set_wake(mb_sim *s, sim_sm *sm, uint64_t at)
{
    if ((at == SIM_NEVER) != (sm->next_wake == SIM_NEVER))
        s->awake[sm->id / 64] ^= (uint64_t)1 << (sm->id % 64);
    sm->next_wake = at;
}

/* sim_static.c */
mb_status sim_build_insns(mb_sim *s, const mb_program *prog, mb_error *err);

/* sim_mem.c */
mb_status sim_mem_init(mb_sim *s, mb_error *err);
void sim_mem_free(mb_sim *s);
void sim_mem_reset_launch(mb_sim *s);
/* Times the memory instruction just executed by `w`; returns the cycles the LSU stays busy. */
uint32_t sim_mem_issue(mb_sim *s, sim_sm *sm, uint32_t slot, const sim_insn *si,
                       const mb_step_event *ev);
/* True when the SM's memory pipeline cannot take another instruction; `why` gets MSHR or MEMQ. */
int sim_mem_blocked(const mb_sim *s, const sim_sm *sm, int *why);
/* Processes every memory event up to and including tick `t`. */
void sim_mem_advance(mb_sim *s, uint64_t t);
/* Tick of the next memory event, or SIM_NEVER. */
uint64_t sim_mem_next_tick(const mb_sim *s);
void sim_wake_warp(mb_sim *s, sim_sm *sm, uint32_t slot);

/* sim_cache helpers (sim_mem.c) */
int sim_cache_init(sim_cache *c, const sim_cache_geom *g);
void sim_cache_free(sim_cache *c);

#endif
