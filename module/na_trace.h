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
#include <linux/version.h>

/* 6.10 takes the source from __string() */
#if KERNEL_VERSION(6, 10, 0) > LINUX_VERSION_CODE
#define na_assign_str(dst, src)	__assign_str(dst, src)
#else
#define na_assign_str(dst, src)	__assign_str(dst)
#endif

/* One task's node set changed: advice, or the mask it runs under. */
DECLARE_EVENT_CLASS(numa_advise_task_nodes,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 const char *reason),
	TP_ARGS(pid, tgid, comm, from, to, reason),
	TP_STRUCT__entry(
		__field(pid_t, pid)
		__field(pid_t, tgid)
		__array(char, comm, TASK_COMM_LEN)
		__field(u64, from)
		__field(u64, to)
		__string(reason, reason)
	),
	TP_fast_assign(
		__entry->pid = pid;
		__entry->tgid = tgid;
		memcpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->from = from;
		__entry->to = to;
		na_assign_str(reason, reason);
	),
	TP_printk("pid=%d tgid=%d comm=%s from=%#llx to=%#llx reason=%s",
		  __entry->pid, __entry->tgid, __entry->comm, __entry->from,
		  __entry->to, __get_str(reason))
);

/* The advice for a task changed: from the nodes it was told before. */
DEFINE_EVENT(numa_advise_task_nodes, numa_advise_advice,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 const char *reason),
	TP_ARGS(pid, tgid, comm, from, to, reason)
);

/* A mask was narrowed (placed), inherited (adopted) or put back (restored). */
DEFINE_EVENT(numa_advise_task_nodes, numa_advise_place,
	TP_PROTO(pid_t pid, pid_t tgid, const char *comm, u64 from, u64 to,
		 const char *reason),
	TP_ARGS(pid, tgid, comm, from, to, reason)
);

/* A node changed class; loads in per-mille of its capacity. */
TRACE_EVENT(numa_advise_node_class,
	TP_PROTO(int node, const char *from, const char *to, u32 util_pm,
		 u32 runnable_pm),
	TP_ARGS(node, from, to, util_pm, runnable_pm),
	TP_STRUCT__entry(
		__field(int, node)
		__string(from, from)
		__string(to, to)
		__field(u32, util_pm)
		__field(u32, runnable_pm)
	),
	TP_fast_assign(
		__entry->node = node;
		na_assign_str(from, from);
		na_assign_str(to, to);
		__entry->util_pm = util_pm;
		__entry->runnable_pm = runnable_pm;
	),
	TP_printk("node=%d from=%s to=%s util_pm=%u runnable_pm=%u",
		  __entry->node, __get_str(from), __get_str(to),
		  __entry->util_pm, __entry->runnable_pm)
);

#endif /* _NA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE na_trace
#include <trace/define_trace.h>
