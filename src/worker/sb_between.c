/*
 * sb_between.c
 *		Between two calls of a child that serves on (a workspace, the
 *		groups of a group_by call, a held function's rows) the runtime reads
 *		the next call's inputs with pandas and numpy (sb_runtime._read_next),
 *		with the last call's guards on.  Two checks here stand whatever the
 *		Python layer missed: no class that reading relies on was changed
 *		since the worker warmed it (watch_classes, changed_class), and no
 *		frame of the code's runs meanwhile (code_off, code_on).  What dies
 *		as the code runs runs nothing of the code's (death_guard), and what
 *		cannot be in a cycle is left out of the collection between calls
 *		(untrack_leaves).  Functions of the module sb_io (sb_io.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdbool.h>

#include "sb_worker.h"

/*
 * sb_io.code_off(filenames) / sb_io.code_on() -> str or None: nothing of
 * the code's runs while a child that serves on reads its next inputs
 * (sb_runtime._read_next, between two calls).  code_off refuses every frame of a code object compiled from
 * the code's text (its co_filename is one of filenames, a tuple of str)
 * before its first instruction, however the frame was reached: a library
 * class's method replaced in an earlier call, a registry written into, a
 * generator resumed.  code_on stops refusing and gives the name of the
 * first function refused, or None: a library that caught the error ran
 * nothing of the code's, but the child's state is not what it was, and it
 * ends.
 *
 * On CPython 3.11 the frames are checked by a frame evaluation function
 * (PEP 523), which sees every Python frame, generators' included, and
 * costs one comparison per frame; a profile function sees the same frames
 * but runs every Python instruction unspecialised meanwhile (a workspace
 * call reading 200,000 jsonb rows took 636 ms against 458-493).  A refused
 * frame is not evaluated at all: the function returns NULL with the error
 * set, as an evaluation that raised at once would (the caller, not the
 * evaluator, clears a function's frame in 3.11; a generator's frame is
 * cleared as one that raised).  Other versions use the profile function.
 * Neither sees a call CPython 3.11 runs inline in the caller's frame (a
 * specialised BINARY_SUBSCR_GETITEM runs a class's __getitem__ so, review
 * 40): this is a second line, behind the guards the reading keeps on.
 */
static PyObject *sb_code_filenames = NULL;
static char sb_code_refused[128];

/* a refused frame's error, by where it would have run (%s: its name) */
#define SB_BETWEEN_CALLS "the code's function \"%s\" ran between two calls, where nothing of " \
	"the code's may run: an earlier call changed a library's class or registry"
#define SB_AS_IT_DIED "the code's function \"%s\" was not run as an object died (a weakref's " \
	"callback): nothing of the code's may run then in the sandbox; drop the callback, and " \
	"keep what you need in a list or dict"
static const char *sb_refused_where = SB_BETWEEN_CALLS;

/* Is code one of the code's?  Then note its name and set the error. */
static bool
sb_code_frame_refused(PyCodeObject *code)
{
	PyObject   *fn = code->co_filename;
	Py_ssize_t	i;
	bool		found = false;

	for (i = 0; i < PyTuple_GET_SIZE(sb_code_filenames) && !found; i++)
	{
		PyObject   *name = PyTuple_GET_ITEM(sb_code_filenames, i);

		found = fn == name ||
			(PyUnicode_Check(fn) && PyUnicode_GET_LENGTH(fn) == PyUnicode_GET_LENGTH(name) &&
			 PyUnicode_Compare(fn, name) == 0);
	}
	if (!found)
		return false;
	if (sb_code_refused[0] == '\0')
	{
		const char *fname = PyUnicode_Check(code->co_name) ?
			PyUnicode_AsUTF8(code->co_name) : NULL;

		if (fname == NULL)
		{
			PyErr_Clear();
			fname = "?";
		}
		{
			/* clipped to whole UTF-8 characters: code_on() makes a str of it */
			size_t		len = strlen(fname);

			if (len >= sizeof(sb_code_refused))
			{
				len = sizeof(sb_code_refused) - 1;
				while (len > 0 && (((unsigned char) fname[len]) & 0xC0) == 0x80)
					len--;
			}
			memcpy(sb_code_refused, fname, len);
			sb_code_refused[len] = '\0';
		}
	}
	PyErr_Format(PyExc_RuntimeError, sb_refused_where, sb_code_refused);
	return true;
}

#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
#define SB_EVAL_FRAME_HOOK 1

/* the first members of CPython 3.11's _PyInterpreterFrame (pycore_frame.h) */
typedef struct SbFrameHead
{
	PyObject   *f_func;
	PyObject   *f_globals;
	PyObject   *f_builtins;
	PyObject   *f_locals;
	PyCodeObject *f_code;
} SbFrameHead;

static PyObject *
sb_refuse_code_eval(PyThreadState *tstate, struct _PyInterpreterFrame *frame, int throwflag)
{
	if (sb_code_frame_refused(((SbFrameHead *) frame)->f_code))
		return NULL;
	return _PyEval_EvalFrameDefault(tstate, frame, throwflag);
}
#else
static int
sb_refuse_code_frame(PyObject *unused, PyFrameObject *frame, int what, PyObject *arg)
{
	PyCodeObject *code;
	bool		refused;

	(void) unused;
	(void) arg;
	if (what != PyTrace_CALL)
		return 0;
	code = PyFrame_GetCode(frame);
	refused = sb_code_frame_refused(code);
	Py_DECREF(code);
	return refused ? -1 : 0;
}
#endif

/* Install (on) or remove the check of every frame; -1 with an error set. */
static int
sb_frame_check(bool on)
{
#ifdef SB_EVAL_FRAME_HOOK
	PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());

	if (on && _PyInterpreterState_GetEvalFrameFunc(interp) != _PyEval_EvalFrameDefault)
	{
		PyErr_SetString(PyExc_RuntimeError, "code_off(): another frame evaluator is set");
		return -1;
	}
	_PyInterpreterState_SetEvalFrameFunc(interp, on ? sb_refuse_code_eval : _PyEval_EvalFrameDefault);
	return 0;
#else
	/* fails only if an audit hook refuses it: then the caller fails */
	return _PyEval_SetProfile(PyThreadState_Get(), on ? sb_refuse_code_frame : NULL, NULL);
#endif
}

PyObject *
sb_io_code_off(PyObject *self, PyObject *arg)
{
	Py_ssize_t	i;

	(void) self;
	if (!PyTuple_Check(arg))
		goto bad;
	for (i = 0; i < PyTuple_GET_SIZE(arg); i++)
		if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(arg, i)))
			goto bad;
	Py_INCREF(arg);
	Py_XSETREF(sb_code_filenames, arg);
	sb_code_refused[0] = '\0';
	sb_refused_where = SB_BETWEEN_CALLS;
	if (sb_frame_check(true) < 0)
		return NULL;
	Py_RETURN_NONE;

bad:
	PyErr_SetString(PyExc_TypeError, "code_off() takes a tuple of str");
	return NULL;
}

PyObject *
sb_io_code_on(PyObject *self, PyObject *unused)
{
	(void) self;
	(void) unused;
	if (sb_frame_check(false) < 0)
		return NULL;
	if (sb_code_refused[0] == '\0')
		Py_RETURN_NONE;
	return PyUnicode_FromString(sb_code_refused);
}

/*
 * sb_io.death_guard(filenames, immediate) / sb_io.death_guard(None):
 * while a call of the Python layer runs (and between a workspace's calls),
 * nothing runs as an object dies but what the worker knows runs nothing of
 * the code's.  numpy's stores into arrays of objects that drop the old
 * object before they store the new one (putmask, where=, a cast into
 * object: move_references; pandas' where/mask/update over them) leave the
 * array pointing to the dying object then: whatever ran read it back and
 * kept it past its free.  Finalizers are off in a call (finalizers_off,
 * and no class made in a call has one: sb_type_new).  A weakref's callback
 * is not a finalizer: every callback given to weakref.ref (its subclasses,
 * their __new__) or weakref.proxy is wrapped when the reference is made.
 * The wrapper runs a callback whose function's code is one of "immediate"
 * (matplotlib's, which drops an entry keyed by id(): it cannot wait) with
 * the code's frames refused, its error dropped, nothing printed (printing
 * it ran the code's __repr__: review 133 F1); any other it queues, to run
 * when the call's functions have returned (sb_io.death_callbacks_take):
 * a callback of the code's, or one made of builtins and library functions
 * over the code's objects (functools.partial(np.copyto, keep, a[:1]) read
 * the dying object without a frame of the code's: review 133 F2), or a
 * library function that reaches the code's __getitem__ where CPython 3.11
 * runs it inline, past the frame check (review 133 F5).  Review 131 F1
 * found the first: type() of what matplotlib's weak dictionaries hold is
 * weakref.KeyedRef, and weakref.ref.
 */
typedef struct SbDeathCallback
{
	PyObject_HEAD
	PyObject   *callback;
} SbDeathCallback;

static bool sb_death_guard_on = false;
static PyObject *sb_death_immediate = NULL; /* a set of code objects */
static PyObject *sb_death_queue = NULL; /* [(callback, args), ...] */
static newfunc sb_ref_new_real = NULL;
static _PyCFunctionFast sb_proxy_real = NULL;
static newfunc sb_type_new_real = NULL;

/* what a real dict's pop is, to recognise it bound to another (set once) */
static PyMethodDef *sb_dict_pop_def = NULL;

/*
 * Is callback one whose running cannot wait, and runs nothing of the
 * code's?  matplotlib's lambda _, pop=d.pop, k=id(x): pop(k), with its
 * defaults as matplotlib makes them: a real dict's pop and an int.  The
 * code can hand set_children a child of its own whose _parents' pop is
 * anything (functools.partial(np.copyto, ...) read the dying object back:
 * review 137 F1), or a real dict holding keys of its own: such a callback
 * waits as any other.
 */
static bool
sb_death_callback_immediate(PyObject *callback)
{
	PyObject   *defaults;
	PyObject   *pop;
	int			found;

	if (sb_death_immediate == NULL || sb_dict_pop_def == NULL || !PyFunction_Check(callback))
		return false;
	found = PySet_Contains(sb_death_immediate, PyFunction_GET_CODE(callback));
	if (found < 0)
		PyErr_Clear();
	if (found != 1 || PyFunction_GET_KW_DEFAULTS(callback) != NULL ||
		PyFunction_GET_CLOSURE(callback) != NULL)
		return false;
	defaults = PyFunction_GET_DEFAULTS(callback);
	if (defaults == NULL || !PyTuple_CheckExact(defaults) || PyTuple_GET_SIZE(defaults) != 2)
		return false;
	pop = PyTuple_GET_ITEM(defaults, 0);
	if (!PyCFunction_CheckExact(pop) ||
		((PyCFunctionObject *) pop)->m_ml != sb_dict_pop_def ||
		!PyDict_CheckExact(PyCFunction_GET_SELF(pop)) ||
		!PyLong_CheckExact(PyTuple_GET_ITEM(defaults, 1)))
		return false;

	/*
	 * and a dict of ints only, as matplotlib's _parents is: pop() compares
	 * the keys of an equal hash with k, and a key of the code's ran its
	 * __eq__ (a library function through a decorator, or one whose
	 * subscript CPython runs inline: review 138 F1).  Walking the dict runs
	 * nothing; comparing two ints runs nothing.
	 */
	{
		PyObject   *d = PyCFunction_GET_SELF(pop);
		Py_ssize_t	pos = 0;
		PyObject   *key;
		PyObject   *value;

		while (PyDict_Next(d, &pos, &key, &value))
			if (!PyLong_CheckExact(key))
				return false;
	}
	return true;
}

static PyObject *
sb_death_callback_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
	PyObject   *callback = ((SbDeathCallback *) self)->callback;
	PyObject   *result;
	PyObject   *entry;
	const char *where;

	if (!sb_death_guard_on || sb_code_filenames == NULL)
		return PyObject_Call(callback, args, kwargs);
	if (!sb_death_callback_immediate(callback))
	{
		/* run when the call's functions have returned */
		if (sb_death_queue == NULL && (sb_death_queue = PyList_New(0)) == NULL)
			return NULL;
		entry = PyTuple_Pack(2, callback, args);
		if (entry == NULL)
			return NULL;
		if (PyList_Append(sb_death_queue, entry) < 0)
		{
			Py_DECREF(entry);
			return NULL;
		}
		Py_DECREF(entry);
		Py_RETURN_NONE;
	}
#ifdef SB_EVAL_FRAME_HOOK
	{
		PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
		_PyFrameEvalFunction eval = _PyInterpreterState_GetEvalFrameFunc(interp);

		if (eval == sb_refuse_code_eval)	/* between two calls: checked already */
		{
			result = PyObject_Call(callback, args, kwargs);
			if (result == NULL)
				PyErr_Clear();
			Py_XDECREF(result);
			Py_RETURN_NONE;
		}
		if (eval != _PyEval_EvalFrameDefault)
			Py_RETURN_NONE;		/* another evaluator: nothing runs */
	}
#endif
	where = sb_refused_where;
	sb_refused_where = SB_AS_IT_DIED;
	sb_code_refused[0] = '\0';
	if (sb_frame_check(true) < 0)
	{
		sb_refused_where = where;
		PyErr_Clear();
		Py_RETURN_NONE;
	}
	result = PyObject_Call(callback, args, kwargs);
	/* its error dropped while the code's frames are still refused */
	if (result == NULL)
		PyErr_Clear();
	Py_XDECREF(result);
	if (sb_frame_check(false) < 0)
		PyErr_Clear();
	sb_refused_where = where;
	Py_RETURN_NONE;
}

static int
sb_death_callback_traverse(PyObject *self, visitproc visit, void *arg)
{
	Py_VISIT(((SbDeathCallback *) self)->callback);
	return 0;
}

static int
sb_death_callback_clear(PyObject *self)
{
	Py_CLEAR(((SbDeathCallback *) self)->callback);
	return 0;
}

static void
sb_death_callback_dealloc(PyObject *self)
{
	PyObject_GC_UnTrack(self);
	(void) sb_death_callback_clear(self);
	PyObject_GC_Del(self);
}

/* a fixed text: the callback's repr may be the code's (review 133 F1) */
static PyObject *
sb_death_callback_repr(PyObject *self)
{
	(void) self;
	return PyUnicode_FromString("<weakref callback>");
}

static PyTypeObject SbDeathCallbackType = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "weakref_callback",
	.tp_basicsize = sizeof(SbDeathCallback),
	.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
	.tp_call = sb_death_callback_call,
	.tp_traverse = sb_death_callback_traverse,
	.tp_clear = sb_death_callback_clear,
	.tp_dealloc = sb_death_callback_dealloc,
	.tp_repr = sb_death_callback_repr,
};

/* args with its callback (item 1, if any and not None) wrapped; a new reference */
static PyObject *
sb_death_args(PyObject *args)
{
	PyObject   *callback;
	PyObject   *wrapped;
	SbDeathCallback *w;

	if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) < 2)
		return Py_NewRef(args);
	callback = PyTuple_GET_ITEM(args, 1);
	if (callback == Py_None || Py_IS_TYPE(callback, &SbDeathCallbackType))
		return Py_NewRef(args);
	w = PyObject_GC_New(SbDeathCallback, &SbDeathCallbackType);
	if (w == NULL)
		return NULL;
	w->callback = Py_NewRef(callback);
	PyObject_GC_Track((PyObject *) w);
	/* a new tuple: a slice of a whole tuple is that tuple, the caller's
	 * (weakref.ref(*t) rewrote t, a dtype's names too: review 137 F2) */
	wrapped = PyTuple_New(PyTuple_GET_SIZE(args));
	if (wrapped == NULL)
	{
		Py_DECREF(w);
		return NULL;
	}
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
		PyTuple_SET_ITEM(wrapped, i, i == 1 ? (PyObject *) w : Py_NewRef(PyTuple_GET_ITEM(args, i)));
	return wrapped;
}

static PyObject *
sb_ref_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
	PyObject   *wrapped = sb_death_args(args);
	PyObject   *ref;

	if (wrapped == NULL)
		return NULL;
	ref = sb_ref_new_real(type, wrapped, kwargs);
	Py_DECREF(wrapped);
	return ref;
}

static PyObject *
sb_proxy(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
	PyObject   *tuple = PyTuple_New(nargs);
	PyObject   *wrapped;
	PyObject   *proxy;
	Py_ssize_t	i;

	if (tuple == NULL)
		return NULL;
	for (i = 0; i < nargs; i++)
		PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
	wrapped = sb_death_args(tuple);
	Py_DECREF(tuple);
	if (wrapped == NULL)
		return NULL;
	proxy = sb_proxy_real(module, &PyTuple_GET_ITEM(wrapped, 0), PyTuple_GET_SIZE(wrapped));
	Py_DECREF(wrapped);
	return proxy;
}

/*
 * A class made while the guard is on has no finalizer: one inherited from
 * a library class (io's, which calls its close(); a __del__) found again
 * through the __del__ slot of its base, whatever finalizers_off cleared
 * there, and ran the code's method as an object died
 * (dataclasses.make_dataclass with io.BytesIO as a base: review 133 F4).
 */
static PyObject *
sb_type_new(PyTypeObject *meta, PyObject *args, PyObject *kwargs)
{
	PyObject   *cls = sb_type_new_real(meta, args, kwargs);

	if (cls != NULL && sb_death_guard_on && PyType_Check(cls))
		((PyTypeObject *) cls)->tp_finalize = NULL;
	return cls;
}

/* type and its subclasses that still use the real tp_new take ours */
static int
sb_new_patch(PyTypeObject *type, newfunc real, newfunc ours)
{
	PyObject   *subclasses;
	Py_ssize_t	i;
	int			rc = 0;

	if (type->tp_new == real)
		type->tp_new = ours;
	/* type.__subclasses__(t): type's own is unbound when asked of type */
	subclasses = PyObject_CallMethod((PyObject *) &PyType_Type, "__subclasses__", "O", type);
	if (subclasses == NULL || !PyList_Check(subclasses))
	{
		Py_XDECREF(subclasses);
		return -1;
	}
	for (i = 0; i < PyList_GET_SIZE(subclasses) && rc == 0; i++)
		rc = sb_new_patch((PyTypeObject *) PyList_GET_ITEM(subclasses, i), real, ours);
	Py_DECREF(subclasses);
	return rc;
}

/* Wrap the callbacks of references made from now on (once, in the worker). */
static int
sb_death_guard_install(void)
{
	PyObject   *module;
	PyObject   *proxy;

	if (sb_ref_new_real != NULL)
		return 0;
	if (PyType_Ready(&SbDeathCallbackType) < 0)
		return -1;
	module = PyImport_ImportModule("_weakref");
	if (module == NULL)
		return -1;
	proxy = PyObject_GetAttrString(module, "proxy");
	Py_DECREF(module);
	if (proxy == NULL)
		return -1;
	/* weakref.proxy(object, callback=None, /), a METH_FASTCALL function */
	if (!PyCFunction_Check(proxy) ||
		((PyCFunctionObject *) proxy)->m_ml->ml_flags != METH_FASTCALL)
	{
		Py_DECREF(proxy);
		PyErr_SetString(PyExc_RuntimeError, "death_guard(): weakref.proxy is not as expected");
		return -1;
	}
	sb_proxy_real = (_PyCFunctionFast) (void (*) (void)) ((PyCFunctionObject *) proxy)->m_ml->ml_meth;
	((PyCFunctionObject *) proxy)->m_ml->ml_meth = (PyCFunction) (void (*) (void)) sb_proxy;
	Py_DECREF(proxy);
	{
		PyObject   *d = PyDict_New();
		PyObject   *pop = d != NULL ? PyObject_GetAttrString(d, "pop") : NULL;

		if (pop != NULL && PyCFunction_CheckExact(pop))
			sb_dict_pop_def = ((PyCFunctionObject *) pop)->m_ml;
		Py_XDECREF(pop);
		Py_XDECREF(d);
		if (sb_dict_pop_def == NULL)
		{
			PyErr_Clear();
			PyErr_SetString(PyExc_RuntimeError, "death_guard(): dict.pop is not as expected");
			return -1;
		}
	}
	sb_ref_new_real = _PyWeakref_RefType.tp_new;
	sb_type_new_real = PyType_Type.tp_new;
	if (sb_new_patch(&_PyWeakref_RefType, sb_ref_new_real, sb_ref_new) < 0)
		return -1;
	return sb_new_patch(&PyType_Type, sb_type_new_real, sb_type_new);
}

PyObject *
sb_io_death_guard(PyObject *self, PyObject *args)
{
	PyObject   *filenames;
	PyObject   *immediate = NULL;
	Py_ssize_t	i;

	(void) self;
	if (!PyArg_ParseTuple(args, "O|O", &filenames, &immediate))
		return NULL;
	if (filenames == Py_None)
	{
		sb_death_guard_on = false;
		Py_RETURN_NONE;
	}
	if (!PyTuple_Check(filenames) || immediate == NULL || !PyFrozenSet_Check(immediate))
		goto bad;
	for (i = 0; i < PyTuple_GET_SIZE(filenames); i++)
		if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(filenames, i)))
			goto bad;
	if (sb_death_guard_install() < 0)
		return NULL;
	Py_INCREF(filenames);
	Py_XSETREF(sb_code_filenames, filenames);
	Py_INCREF(immediate);
	Py_XSETREF(sb_death_immediate, immediate);
	sb_death_guard_on = true;
	Py_RETURN_NONE;

bad:
	PyErr_SetString(PyExc_TypeError,
					"death_guard() takes a tuple of str and a frozenset of code objects, or None");
	return NULL;
}

/* sb_io.death_callbacks_take(): the callbacks queued, [(callback, args)], emptied */
PyObject *
sb_io_death_callbacks_take(PyObject *self, PyObject *unused)
{
	PyObject   *taken = sb_death_queue;

	(void) self;
	(void) unused;
	sb_death_queue = NULL;
	return taken != NULL ? taken : PyList_New(0);
}

/*
 * sb_io.watch_classes(types) / sb_io.changed_class() -> type or None: the
 * classes a serving child's reading of its next inputs relies on (pandas',
 * numpy's, the parts of the standard library it uses) are as the worker
 * warmed them.  The code changes no library class (sb_guard.guard_settable),
 * but a route the Python layer does not know (typing's aliases set any name
 * on their origin with the real setattr) changed one in a call, and the
 * next call's decoding, with the guards off, ran what it was given.
 * watch_classes, in the worker before any child exists, gives each class a
 * version tag (CPython's method cache key, which any change to the class or
 * its bases invalidates: PyType_Modified) and records it; children inherit
 * the record, and changed_class gives the first class whose tag is not the
 * one recorded.  Reading the tags writes nothing (no copy-on-write).
 */
static PyTypeObject **sb_watched;
static unsigned int *sb_watched_tags;
static Py_ssize_t sb_nwatched;

/* Give tp a version tag if it has none (a lookup through the method cache
 * does); whether it has one. */
static bool
sb_class_tag(PyTypeObject *tp, PyObject *probe)
{
	if (!(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG))
		(void) _PyType_Lookup(tp, probe);
	return (tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) != 0;
}

PyObject *
sb_io_watch_classes(PyObject *self, PyObject *arg)
{
	PyObject   *seq,
			   *probe;
	Py_ssize_t	n,
				k;

	(void) self;
	if (sb_watched != NULL)
	{
		PyErr_SetString(PyExc_RuntimeError, "watch_classes(): the classes are watched already");
		return NULL;
	}
	seq = PySequence_Fast(arg, "watch_classes() takes a sequence of types");
	if (seq == NULL)
		return NULL;
	n = PySequence_Fast_GET_SIZE(seq);
	sb_watched = PyMem_RawCalloc(n > 0 ? n : 1, sizeof(*sb_watched));
	sb_watched_tags = PyMem_RawCalloc(n > 0 ? n : 1, sizeof(*sb_watched_tags));
	probe = PyUnicode_InternFromString("__sb_watch__");
	if (sb_watched == NULL || sb_watched_tags == NULL || probe == NULL)
	{
		Py_XDECREF(probe);
		Py_DECREF(seq);
		return PyErr_NoMemory();
	}
	for (k = 0; k < n; k++)
	{
		PyObject   *item = PySequence_Fast_GET_ITEM(seq, k);
		PyTypeObject *tp;

		if (!PyType_Check(item))
			continue;
		tp = (PyTypeObject *) item;
		if (!sb_class_tag(tp, probe))
			continue;			/* one CPython gives no tag: not watched */
		Py_INCREF(tp);
		sb_watched[sb_nwatched] = tp;
		sb_watched_tags[sb_nwatched] = tp->tp_version_tag;
		sb_nwatched++;
	}
	Py_DECREF(probe);
	Py_DECREF(seq);
	return PyLong_FromSsize_t(sb_nwatched);
}

/*
 * sb_io.rewatch_class(cls): the runtime itself changed cls, on the code's
 * behalf, in a way it checked (pandas' accessor registration, a documented
 * API): the tags of cls and of its watched subclasses are recorded again,
 * before anything else runs.
 */
PyObject *
sb_io_rewatch_class(PyObject *self, PyObject *arg)
{
	PyObject   *probe;
	Py_ssize_t	k;

	(void) self;
	if (!PyType_Check(arg))
	{
		PyErr_SetString(PyExc_TypeError, "rewatch_class() takes a type");
		return NULL;
	}
	probe = PyUnicode_InternFromString("__sb_watch__");
	if (probe == NULL)
		return NULL;
	for (k = 0; k < sb_nwatched; k++)
	{
		PyTypeObject *tp = sb_watched[k];

		if (!PyType_IsSubtype(tp, (PyTypeObject *) arg))
			continue;
		sb_watched_tags[k] = sb_class_tag(tp, probe) ? tp->tp_version_tag : 0;
	}
	Py_DECREF(probe);
	Py_RETURN_NONE;
}

PyObject *
sb_io_changed_class(PyObject *self, PyObject *unused)
{
	Py_ssize_t	k;

	(void) self;
	(void) unused;
	for (k = 0; k < sb_nwatched; k++)
	{
		PyTypeObject *tp = sb_watched[k];

		if (!(tp->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) ||
			tp->tp_version_tag != sb_watched_tags[k])
		{
			Py_INCREF(tp);
			return (PyObject *) tp;
		}
	}
	Py_RETURN_NONE;
}

/*
 * sb_untrack_leaves: whether v can be in no reference cycle as it stands:
 * an object the collector does not track (str, int, float, bool, None,
 * bytes, Decimal, datetime ...), or an exact list or dict holding only
 * such, which is then untracked.  Nothing of Python runs here (exact types,
 * no comparison, no hashing); deep nesting stays tracked.
 */
#define SB_UNTRACK_DEPTH 32

static bool
sb_untrack_leaves(PyObject *v, int depth)
{
	bool		leaves = true;

	if (!PyObject_GC_IsTracked(v))
		return true;
	if (depth >= SB_UNTRACK_DEPTH)
		return false;
	if (PyList_CheckExact(v))
	{
		for (Py_ssize_t i = 0; i < PyList_GET_SIZE(v); i++)
			if (!sb_untrack_leaves(PyList_GET_ITEM(v, i), depth + 1))
				leaves = false;
	}
	else if (PyDict_CheckExact(v))
	{
		Py_ssize_t	pos = 0;
		PyObject   *key;
		PyObject   *value;

		while (PyDict_Next(v, &pos, &key, &value))
			if (PyObject_GC_IsTracked(key) ||
				!sb_untrack_leaves(value, depth + 1))
				leaves = false;
	}
	else
		return false;
	if (leaves)
		PyObject_GC_UnTrack(v);
	return leaves;
}

/*
 * sb_io.untrack_leaves(values): the lists and dicts the codec made of a
 * column's JSON and array values (values: a list of them), untracked by the
 * garbage collector where they hold only values that are in no cycle.  A
 * workspace's full collection after each call scanned every one of them
 * again (review 130 F1: ~80 ms per call with 120k jsonb rows in ws).  A
 * cycle the code makes later through one of them (l.append(l)) is never
 * collected: memory the call's limit counts, nothing else.
 */
PyObject *
sb_io_untrack_leaves(PyObject *self, PyObject *values)
{
	(void) self;
	if (!PyList_CheckExact(values))
	{
		PyErr_SetString(PyExc_TypeError, "untrack_leaves takes a list");
		return NULL;
	}
	for (Py_ssize_t i = 0; i < PyList_GET_SIZE(values); i++)
		(void) sb_untrack_leaves(PyList_GET_ITEM(values, i), 0);
	Py_RETURN_NONE;
}
