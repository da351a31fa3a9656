/*
 * sb_python.c
 *		The embedded CPython interpreter of the worker.
 *
 * CPython starts with an isolated configuration (no environment variables,
 * no user site, no signal handlers of its own), loads the pysandbox Python
 * modules compiled into this binary (src/python, see sb_embedded.c) and
 * calls sb_runtime.warm(), which imports and exercises numpy and pandas so
 * that every child forked later starts warm and never needs to load native
 * code (it could not: seccomp forbids executable mappings).
 *
 * The child talks to the backend through the builtin module sb_io
 * (sb_io.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <malloc.h>

#include "sb_worker.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef struct SbEmbeddedModule
{
	const char *name;
	const char *source;
} SbEmbeddedModule;

extern const SbEmbeddedModule sb_embedded_modules[];

/* Print the pending Python exception to stderr (the server log). */
static void
sb_python_report(const char *what)
{
	fprintf(stderr, "pysandbox-worker: %s\n", what);
	if (PyErr_Occurred())
		PyErr_Print();
}

/* Compile and import one embedded module under its own name. */
static int
sb_python_load_module(const SbEmbeddedModule *m)
{
	char		filename[128];
	PyObject   *code;
	PyObject   *mod;

	snprintf(filename, sizeof(filename), "<pysandbox/%s.py>", m->name);
	code = Py_CompileString(m->source, filename, Py_file_input);
	if (code == NULL)
		return -1;
	mod = PyImport_ExecCodeModuleEx(m->name, code, filename);
	Py_DECREF(code);
	if (mod == NULL)
		return -1;
	Py_DECREF(mod);
	return 0;
}

/* Call sb_runtime.<func>(*args); returns a new reference or NULL. */
static PyObject *
sb_python_call(const char *func, PyObject *args)
{
	PyObject   *mod = PyImport_ImportModule("sb_runtime");
	PyObject   *fn;
	PyObject   *res;

	if (mod == NULL)
		return NULL;
	fn = PyObject_GetAttrString(mod, func);
	Py_DECREF(mod);
	if (fn == NULL)
		return NULL;
	res = PyObject_CallObject(fn, args);
	Py_DECREF(fn);
	return res;
}

/*
 * numpy's legacy generator (np.random.seed, np.random.random, pandas'
 * sample...) is one MT19937 state that every child inherits from the
 * worker.  Each child must draw its own numbers; np.random.seed() in a fresh
 * child costs ~4 ms, nearly all of it copy-on-write faults of numpy's code
 * paths.  Writing fresh entropy straight into the state costs one page.
 *
 * The state is found through the bit generator's capsule (a bitgen_t whose
 * first member points to numpy's mt19937_state: uint32_t key[624]; int
 * pos) and used only if its first words and position match what Python
 * reported; otherwise the child falls back to np.random.seed().
 */
#define SB_MT_WORDS 624

typedef struct SbMtState
{
	uint32_t	key[SB_MT_WORDS];
	int			pos;
} SbMtState;

static SbMtState *sb_mt_state;

int
sb_getrandom_all(void *buf, size_t len)
{
	size_t		got = 0;

	while (got < len)
	{
		ssize_t		n = getrandom((char *) buf + got, len - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += n;
	}
	return 0;
}

static void
sb_python_find_mt_state(PyObject *warm_result)
{
	PyObject   *capsule;
	PyObject   *mod;
	char	   *head;
	Py_ssize_t	head_len;
	long		pos;
	SbMtState **bitgen;
	SbMtState  *state;

	if (!PyTuple_Check(warm_result) || PyTuple_GET_SIZE(warm_result) != 3)
		return;
	capsule = PyTuple_GET_ITEM(warm_result, 0);
	if (!PyCapsule_IsValid(capsule, "BitGenerator") ||
		PyBytes_AsStringAndSize(PyTuple_GET_ITEM(warm_result, 1), &head, &head_len) < 0)
	{
		PyErr_Clear();
		return;
	}
	pos = PyLong_AsLong(PyTuple_GET_ITEM(warm_result, 2));
	if (PyErr_Occurred())
	{
		PyErr_Clear();
		return;
	}
	bitgen = PyCapsule_GetPointer(capsule, "BitGenerator");
	state = bitgen != NULL ? *bitgen : NULL;
	if (state == NULL || head_len != 8 * sizeof(uint32_t) ||
		memcmp(state->key, head, head_len) != 0 || state->pos != pos)
		return;
	mod = PyImport_ImportModule("sb_runtime");
	if (mod != NULL && PyObject_SetAttrString(mod, "_NUMPY_RESEEDED_AT_FORK", Py_True) == 0)
		sb_mt_state = state;
	Py_XDECREF(mod);
	PyErr_Clear();
}

/*
 * Start the interpreter, load our modules, and warm numpy and pandas.
 * allowed_modules is the comma-separated import allowlist to preload,
 * except what belongs to the packages of preload_modules: those are the
 * preloaded process's (sb_python_preload).
 */
int
sb_python_start(const char *allowed_modules, const char *preload_modules)
{
	PyConfig	config;
	PyStatus	status;
	const SbEmbeddedModule *m;
	PyObject   *res;

	if (PyImport_AppendInittab("sb_io", sb_io_init) < 0)
		return -1;

	PyConfig_InitIsolatedConfig(&config);
	config.install_signal_handlers = 0;
	config.write_bytecode = 0;
	config.parse_argv = 0;
	config.site_import = 1;		/* Debian's dist-packages come from site */
	status = PyConfig_SetString(&config, &config.program_name, L"/usr/bin/python3");
	if (!PyStatus_Exception(status))
		status = Py_InitializeFromConfig(&config);
	PyConfig_Clear(&config);
	if (PyStatus_Exception(status))
	{
		fprintf(stderr, "pysandbox-worker: %s\n",
				status.err_msg ? status.err_msg : "Python initialisation failed");
		return -1;
	}

	/* before anything keys a dict by an object hashed by its address */
	if (sb_guard_identity_hashes() < 0)
	{
		sb_python_report("could not key the interpreter's identity hashes");
		return -1;
	}
	for (m = sb_embedded_modules; m->name != NULL; m++)
	{
		if (sb_python_load_module(m) < 0)
		{
			sb_python_report("could not load an embedded module");
			return -1;
		}
	}

	res = sb_python_call("warm", Py_BuildValue("(ss)", allowed_modules, preload_modules));
	if (res == NULL)
	{
		sb_python_report("warm-up failed");
		return -1;
	}
	sb_python_find_mt_state(res);
	Py_DECREF(res);

	/*
	 * Consolidate malloc's free lists once, here: otherwise every child's
	 * first large allocation walks (and so copies) the free chunks the
	 * warm-up left all over the heap.
	 */
	(void) malloc_trim(0);
	/*
	 * Children keep the memory of large allocations for the next one.
	 * glibc maps each allocation over M_MMAP_THRESHOLD on its own and unmaps
	 * it when freed, and gives the heap's free top back above M_TRIM_THRESHOLD; the
	 * thresholds start low (128 kB) and rise only as large blocks are freed.
	 * pandas allocates and frees arrays of megabytes all the time (a
	 * groupby of 1M rows: codes, indexer, sums), so each one was faulted in
	 * afresh, page by page: ~190 zero-fill faults and half the time of that
	 * groupby on the slower VM (10 ms -> 6.5 ms measured in plain Python).
	 * Blocks up to 32 MB (glibc's largest threshold) now come from the heap,
	 * and up to 64 MB of its free top stays mapped.  A one-shot child exits
	 * after its call, so nothing is held longer.  A workspace's child keeps
	 * that top, and freed blocks between live ones stay mapped as they do
	 * for smaller blocks (reused by later allocations that fit): all inside
	 * its memory limit, which RLIMIT_AS counts either way.  Set here, once,
	 * after the trim: every child inherits it, and none pays the free
	 * lists' consolidation that mallopt() starts with.
	 */
	(void) mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	(void) mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
	return 0;
}

/*
 * In the preloaded process (sb_preloaded.c): import and warm the modules
 * of pysandbox.preload_modules; the names imported, comma-separated, into
 * buf (empty if none could be).  What could not be is in the server log.
 */
void
sb_python_preload(const char *preload_modules, char *buf, size_t size)
{
	PyObject   *text = sb_python_call("warm_preload", Py_BuildValue("(s)", preload_modules));
	const char *s = text ? PyUnicode_AsUTF8(text) : NULL;

	if (text == NULL)
		sb_python_report("preloading failed");
	snprintf(buf, size, "%s", s ? s : "");
	PyErr_Clear();
	Py_XDECREF(text);
	(void) malloc_trim(0);
}

/*
 * In the worker, when its preloaded process did not start: import the
 * allowed modules left to it here, as a worker without one does.
 */
void
sb_python_warm_later(void)
{
	PyObject   *res = sb_python_call("warm_later", NULL);

	if (res == NULL)
		sb_python_report("could not import the allowed modules");
	PyErr_Clear();
	Py_XDECREF(res);
	(void) malloc_trim(0);
}

/*
 * In the worker: the modules its preloaded process holds, so that its own
 * children, which do not have them, say how code gets them.
 */
void
sb_python_preloaded_elsewhere(const char *names)
{
	PyObject   *res = sb_python_call("preloaded_elsewhere", Py_BuildValue("(s)", names));

	if (res == NULL)
		sb_python_report("could not note the preloaded modules");
	PyErr_Clear();
	Py_XDECREF(res);
}

/*
 * Fill paths with the directories the child may read (Python's library
 * directories and zoneinfo); returns how many.  The strings live as long as
 * the worker.
 */
int
sb_python_read_paths(const char **paths, int max)
{
	PyObject   *list = sb_python_call("read_paths", NULL);
	Py_ssize_t	i,
				n;
	int			count = 0;

	if (list == NULL || !PyList_Check(list))
	{
		sb_python_report("could not list readable paths");
		Py_XDECREF(list);
		return 0;
	}
	n = PyList_GET_SIZE(list);
	for (i = 0; i < n && count < max; i++)
	{
		const char *s = PyUnicode_AsUTF8(PyList_GET_ITEM(list, i));

		if (s != NULL)
			paths[count++] = strdup(s);
	}
	PyErr_Clear();
	Py_DECREF(list);
	return count;
}

void
sb_python_before_fork(void)
{
	PyOS_BeforeFork();
}

void
sb_python_after_fork_parent(void)
{
	PyOS_AfterFork_Parent();
}

void
sb_python_after_fork_child(void)
{
	PyOS_AfterFork_Child();
	if (sb_mt_state != NULL)
	{
		SbMtState	fresh;

		if (sb_getrandom_all(fresh.key, sizeof(fresh.key)) < 0)
			_exit(SB_CHILD_EXIT_SETUP);
		fresh.key[0] |= 0x80000000U;	/* as MT19937's seeding: never all zero */
		memcpy(sb_mt_state->key, fresh.key, sizeof(fresh.key));
		sb_mt_state->pos = SB_MT_WORDS;	/* the next draw regenerates */
	}
}

/*
 * In a spare child, before it is contained any further and before any
 * request: run a typical call's code paths on synthetic data, so the
 * copy-on-write faults of the pages such a call touches are paid while the
 * spare waits, not while a caller does.  Failures are ignored: the call
 * itself will meet them and report them.
 */
void
sb_python_prewarm(void)
{
	PyObject   *res = sb_python_call("prewarm", NULL);

	if (res == NULL)
		PyErr_Clear();
	Py_XDECREF(res);

	/*
	 * The warm-up freed many small chunks; the call's first large
	 * allocation would merge them (glibc's malloc_consolidate), writing
	 * free chunks all over the heap, some in pages still shared with the
	 * worker: ~8 copy-on-write faults and a walk of cold memory in every
	 * call.  Setting the fast-bin limit (to its default) merges them now;
	 * malloc_trim() would too, but would also give free pages back that
	 * the call then faults in again.
	 */
	(void) mallopt(M_MXFAST, 64 * sizeof(size_t) / 4);
}

/*
 * In the probe child of sb_hotpages.c: a trivial call, without the final
 * collection (a call does not do one).
 */
void
sb_python_probe_call(void)
{
	PyObject   *res = sb_python_call("prewarm", Py_BuildValue("(OOO)", Py_False, Py_False, Py_True));

	if (res == NULL)
		PyErr_Clear();
	Py_XDECREF(res);
}

/*
 * In the contained child: read the request, run it, send the result.
 * claim: this child holds a claim token (a spare), to take when the
 * request arrives.  Returns the child's exit code.
 */
int
sb_python_serve(uint32_t flags, uint32_t cpu_ms, bool claim)
{
	PyObject   *res;
	int			code = SB_CHILD_EXIT_OK;

	sb_claim_pending = claim;
	sb_call_cpu_ms = cpu_ms;

	res = sb_python_call("serve",
						 Py_BuildValue("(O)", (flags & SB_SPAWN_PYTHON_LAYER_OFF) ? Py_False : Py_True));
	if (res == NULL)
	{
		static const char crash[] =
			"{\"kind\":\"crash\",\"type\":\"InternalError\","
			"\"message\":\"the sandbox runtime failed unexpectedly\"}";
		/* too little memory left even to report it from Python */
		static const char memory[] =
			"{\"kind\":\"memory\",\"type\":\"MemoryError\","
			"\"message\":\"out of memory: the call needs more than its memory limit\"}";
		bool		oom = PyErr_ExceptionMatches(PyExc_MemoryError);

		PyErr_Clear();
		sb_python_mailbox_to_socket();
		/* whole frames: SIGPROF's handler sends none in the middle of one */
		sb_io_sending = 1;
		/*
		 * a workspace's child ends with this error: it says so first, so
		 * that the call's error says the workspace ended (review 68 F3)
		 */
		if (sb_io_kept())
			(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_LAST, NULL, 0);
		if (oom)
		{
			(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_ERROR, memory, sizeof(memory) - 1);
			return SB_CHILD_EXIT_OK;
		}
		(void) sb_send_frame(SB_CHILD_DATA_FD, SB_DATA_ERROR, crash, sizeof(crash) - 1);
		return SB_CHILD_EXIT_PROTOCOL;
	}
	if (PyLong_Check(res))
		code = (int) PyLong_AsLong(res);
	Py_DECREF(res);
	/* a call that ends with nothing sent: the backend turns to the socket's end */
	sb_python_mailbox_to_socket();
	/*
	 * Close the data socket before exiting: the kernel tears the address
	 * space down before it closes files, and the backend need not wait for
	 * that to see the end of the output.
	 */
	(void) close(SB_CHILD_DATA_FD);
	return code;
}
