/* SPDX-License-Identifier: GPL-2.0 */
/*
 * na_trace.h - numa_advise's own trace events (system numa_advise)
 *
 * Emitted by the engine thread only, in process context.  Disabled, each
 * costs a static branch; numa-advise-ctl trace streams them.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM numa_advise

#if !defined(_NA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NA_TRACE_H

#include <linux/tracepoint.h>

#include "na_names.h"

/*
 * The enums' names, as __print_symbolic() prints them; TRACE_DEFINE_ENUM
 * puts the numbers in the events' format files, for libtraceevent.
 */
#define NA_TRACE_ENUM(id, name)		TRACE_DEFINE_ENUM(NA_R_##id);
NA_REASONS(NA_TRACE_ENUM)
#undef NA_TRACE_ENUM
#define NA_TRACE_ENUM(id, name)		TRACE_DEFINE_ENUM(NA_##id);
NA_CLASSES(NA_TRACE_ENUM)
#undef NA_TRACE_ENUM
TRACE_DEFINE_ENUM(NA_NR_CLASSES);

#define NA_TRACE_SYM_R(id, name)	{ NA_R_##id, name },
#define NA_TRACE_SYM_C(id, name)	{ NA_##id, name },
#define na_show_reason(r)						\
	__print_symbolic(r, NA_REASONS(NA_TRACE_SYM_R) { 255, "?" })
/* NA_NR_CLASSES: a node not classified yet, or without CPUs */
#define na_show_class(c)						\
	__print_symbolic(c, NA_CLASSES(NA_TRACE_SYM_C) { NA_NR_CLASSES, "-" })

/* One task's node set changed: advice, or the mask it runs under. */
DECLARE_EVENT_CLASS(numa_advise_task_nodes,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 enum na_reason reason),
	TP_ARGS(pid, tgid, comm, from, to, reason),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, tgid)
		__array(char, comm, TASK_COMM_LEN)
		__field(u64, from)
		__field(u64, to)
		__field(u8, reason)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->tgid = tgid;
		memcpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->from = from;
		__entry->to = to;
		__entry->reason = reason;
	),
	TP_printk("pid=%d tgid=%d comm=%s from=%#llx to=%#llx reason=%s",
		  __entry->pid, __entry->tgid, __entry->comm, __entry->from,
		  __entry->to, na_show_reason(__entry->reason))
);

/* The advice for a task changed: from the nodes it was told before. */
DEFINE_EVENT(numa_advise_task_nodes, numa_advise_advice,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 enum na_reason reason),
	TP_ARGS(pid, tgid, comm, from, to, reason)
);

/* A mask was narrowed (placed), inherited (adopted) or put back (restored). */
DEFINE_EVENT(numa_advise_task_nodes, numa_advise_place,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 enum na_reason reason),
	TP_ARGS(pid, tgid, comm, from, to, reason)
);

/* A node changed class; loads in per-mille of its capacity. */
TRACE_EVENT(numa_advise_node_class,
	TP_PROTO(int node, enum na_class from, enum na_class to, u32 util_pm,
		 u32 runnable_pm),
	TP_ARGS(node, from, to, util_pm, runnable_pm),
	TP_STRUCT__entry(
		__field(int, node)
		__field(u8, from)
		__field(u8, to)
		__field(u32, util_pm)
		__field(u32, runnable_pm)
	),
	TP_fast_assign(
		__entry->node = node;
		__entry->from = from;
		__entry->to = to;
		__entry->util_pm = util_pm;
		__entry->runnable_pm = runnable_pm;
	),
	TP_printk("node=%d from=%s to=%s util_pm=%u runnable_pm=%u",
		  __entry->node, na_show_class(__entry->from),
		  na_show_class(__entry->to),
		  __entry->util_pm, __entry->runnable_pm)
);

#endif /* _NA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE na_trace
#include <trace/define_trace.h>
