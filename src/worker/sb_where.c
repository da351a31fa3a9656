/*
 * sb_where.c
 *		Where the call's code was when a limit stopped it: the line and the
 *		function of its innermost frame, for the error the caller reads.
 *
 * The CPU limit is a profiling timer whose SIGPROF used to end the child
 * by its default action (sb_contain.c, step 5).  A model repairing its own
 * code learns more from "stopped at line 7, in main()" than from the limit
 * alone, so each child now handles SIGPROF: sb_where_install() sets the
 * handler before the seccomp filter, which then forbids changing SIGPROF's
 * disposition (sb_seccomp.c), so code cannot make the signal harmless.
 *
 * The handler reads the interpreter's frames as faulthandler does (reads
 * only: no allocation, no lock, a bounded walk), finds the innermost frame
 * of the call's code (file "<sandbox>"), sends its line and qualified name
 * as one SB_DATA_WHERE frame, and exits with SB_CHILD_EXIT_LIMIT.  It sends
 * nothing when the signal interrupted a frame being written
 * (sb_io_sending), or when no frame of the call's code is running (the
 * runtime's own work).  The backend trusts none of it: the frame adds a
 * checked line to an error that the worker's and the kernel's accounting
 * decide (sb_result.c), and the worker kills a child that has not exited
 * SB_STOP_GRACE_US after it sent SIGPROF (sb_worker.c sb_child_stop).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define Py_BUILD_CORE 1
#include "internal/pycore_frame.h"
#undef Py_BUILD_CORE
#define SB_WHERE_FRAMES 1
#endif

#include "sb_worker.h"

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

/* a frame being written by sb_io: the handler must not interleave its own */
volatile sig_atomic_t sb_io_sending = 0;

/* the call's code's file name (sb_runtime.FILENAME) */
static const char sb_code_file[] = "<sandbox>";

/* at most this many frames are looked at, innermost first */
#define SB_WHERE_MAX_DEPTH	512

#ifdef SB_WHERE_FRAMES
/* Copy an ASCII str object's text into buf (NUL-terminated); false if not ASCII. */
static bool
sb_where_ascii(PyObject *s, char *buf, size_t size)
{
	Py_ssize_t	len;

	if (s == NULL || !PyUnicode_Check(s) || !PyUnicode_IS_COMPACT_ASCII(s))
		return false;
	len = PyUnicode_GET_LENGTH(s);
	if (len < 0 || (size_t) len >= size)
		return false;
	memcpy(buf, PyUnicode_DATA(s), (size_t) len);
	buf[len] = '\0';
	return true;
}

/* The innermost frame of the call's code: its line and name into w. */
static bool
sb_where_find(SbWhere *w)
{
	PyThreadState *ts = PyGILState_GetThisThreadState();
	_PyInterpreterFrame *frame;
	int			depth;

	if (ts == NULL || ts->cframe == NULL)
		return false;
	frame = ts->cframe->current_frame;
	for (depth = 0; frame != NULL && depth < SB_WHERE_MAX_DEPTH;
		 frame = frame->previous, depth++)
	{
		PyCodeObject *code = frame->f_code;
		char		file[sizeof(sb_code_file)];
		int			lasti;

		if (code == NULL ||
			!sb_where_ascii(code->co_filename, file, sizeof(file)) ||
			strcmp(file, sb_code_file) != 0)
			continue;
		if (_PyFrame_IsIncomplete(frame))
			continue;
		lasti = _PyInterpreterFrame_LASTI(frame);
		if (lasti < 0)
			continue;
		w->line = PyCode_Addr2Line(code, lasti * (int) sizeof(_Py_CODEUNIT));
		if (w->line <= 0)
			continue;
		if (!sb_where_ascii(code->co_qualname, w->function, sizeof(w->function)))
			w->function[0] = '\0';
		return true;
	}
	return false;
}
#else
static bool
sb_where_find(SbWhere *w)
{
	(void) w;
	return false;
}
#endif

static void
sb_where_handler(int sig)
{
	SbWhere		w;

	(void) sig;
	memset(&w, 0, sizeof(w));
	if (!sb_io_sending && sb_where_find(&w))
		(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_WHERE, &w, sizeof(w));
	_exit(SB_CHILD_EXIT_LIMIT);
}

/*
 * The native stack's end.  CPython 3.11 counts Python frames, not C ones:
 * a chain of 300,000 map() objects, each over the last, recursed in C when
 * consumed and faulted past the stack's end (SIGSEGV, which the caller read
 * as "native code in numpy or pandas failed").  A fault within
 * SB_STACK_SLACK of the interrupted stack pointer is the stack's end: the
 * handler, on a stack of its own, says where the code was and exits with
 * SB_CHILD_EXIT_STACK, which the backend reports as nesting too deep.  Any
 * other fault finds the default action again (SA_RESETHAND) when the
 * instruction faults anew: the crash it was.  Only the message depends on
 * this; the backend trusts the exit code for no more than that.
 */
#define SB_STACK_SLACK		(64 * 1024)
#define SB_SEGV_STACK_SIZE	(64 * 1024)

static char sb_segv_stack[SB_SEGV_STACK_SIZE] __attribute__((aligned(16)));

static uintptr_t
sb_context_sp(void *ucontext)
{
#if defined(__x86_64__)
	return (uintptr_t) ((ucontext_t *) ucontext)->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (uintptr_t) ((ucontext_t *) ucontext)->uc_mcontext.sp;
#else
	(void) ucontext;
	return 0;
#endif
}

static void
sb_segv_handler(int sig, siginfo_t *info, void *ucontext)
{
	uintptr_t	addr = (uintptr_t) info->si_addr;
	uintptr_t	sp = sb_context_sp(ucontext);
	SbWhere		w;

	(void) sig;
	if (sp == 0 || addr + SB_STACK_SLACK < sp || addr > sp + SB_STACK_SLACK)
		return;					/* not the stack's end: faults again, by default */
	memset(&w, 0, sizeof(w));
	if (!sb_io_sending && sb_where_find(&w))
		(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_WHERE, &w, sizeof(w));
	_exit(SB_CHILD_EXIT_STACK);
}

/*
 * In the child, before its seccomp filter: SIGPROF reports where, then ends
 * it; a fault at the native stack's end says so.
 */
int
sb_where_install(void)
{
	struct sigaction sa;
	stack_t		ss;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sb_where_handler;
	sigfillset(&sa.sa_mask);	/* nothing else runs inside it */
	if (sigaction(SIGPROF, &sa, NULL) < 0)
		return -1;

	memset(&ss, 0, sizeof(ss));
	ss.ss_sp = sb_segv_stack;
	ss.ss_size = sizeof(sb_segv_stack);
	if (sigaltstack(&ss, NULL) < 0)
		return -1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sb_segv_handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	return sigaction(SIGSEGV, &sa, NULL);
}
