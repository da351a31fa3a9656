/*
 * sb_memguard.c
 *		Memory the code could reach through native code that trusts what
 *		it is given, closed in the worker before any child exists: numpy's
 *		arrays of Python objects give their memory to no reader of bytes
 *		(guard_object_buffers), numpy's loops over objects hold a reference
 *		to each input while its comparison runs (guard_object_loops), and
 *		extension modules get a tuple copy of a list from PySequence_Fast.
 *		The guards are functions of the module sb_io (sb_io.c), which
 *		src/python/sb_memory.py calls.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "sb_worker.h"

/*
 * sb_io.guard_object_buffers(ndarray): numpy's arrays of Python objects
 * (and structured arrays with an object field) export their memory, the
 * objects' pointers, to any reader of the buffer protocol.  A reader that
 * asks for bytes without their format (struct.pack_into, io's readinto,
 * np.frombuffer) reads and writes the pointers as numbers: written, they
 * forge objects; bytes() and bytearray() ask for the format and copy the
 * bytes all the same.  Cython's typed buffers in pandas ask for the format
 * and strides, never for suboffsets (PyBUF_INDIRECT), and are let through.
 * The ndarray type's buffer slot, and that of every subclass that copied
 * it, is wrapped once in the worker, before any child exists.
 */
static getbufferproc sb_array_getbuffer;

static int
sb_array_holds_objects(PyObject *array)
{
	PyObject   *dtype;
	PyObject   *has;
	int			result;

	dtype = PyObject_GetAttrString(array, "dtype");
	if (dtype == NULL)
		return -1;
	has = PyObject_GetAttrString(dtype, "hasobject");
	Py_DECREF(dtype);
	if (has == NULL)
		return -1;
	result = PyObject_IsTrue(has);
	Py_DECREF(has);
	return result;
}

static int
sb_checked_array_getbuffer(PyObject *obj, Py_buffer *view, int flags)
{
	/*
	 * PyBUF_INDIRECT (suboffsets) is what generic readers ask for with the
	 * format (memoryview, bytes(), bytearray(), int.from_bytes: review 88
	 * read the pointers through them); Cython's typed buffers never do
	 */
	if ((flags & PyBUF_FORMAT) == 0 || (flags & (PyBUF_INDIRECT & ~PyBUF_STRIDES)) != 0)
	{
		int			holds = sb_array_holds_objects(obj);

		if (holds < 0)
			return -1;
		if (holds)
		{
			PyErr_SetString(PyExc_BufferError,
							"the memory of an array of Python objects is not given as bytes "
							"in the sandbox: its pointers would be read and written as numbers");
			view->obj = NULL;
			return -1;
		}
	}
	return sb_array_getbuffer(obj, view, flags);
}

/*
 * Call visit(type, arg) for root and each class derived from it, each once
 * (type.__subclasses__, which a metaclass's own would not answer unbound);
 * the first negative result stops the walk and is returned.  The worker's
 * guards replace a slot in every type that copied it with this.
 */
static int
sb_visit_types(PyTypeObject *type, sb_type_visitor visit, void *arg, PyObject *seen)
{
	PyObject   *key;
	PyObject   *subclasses;
	int			rc;
	Py_ssize_t	i;

	key = PyLong_FromVoidPtr(type);
	if (key == NULL)
		return -1;
	rc = PySet_Contains(seen, key);
	if (rc == 0)
		rc = PySet_Add(seen, key);
	else if (rc == 1)
		rc = 1;					/* seen: nothing more to do */
	Py_DECREF(key);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (visit(type, arg) < 0)
		return -1;
	subclasses = PyObject_CallMethod((PyObject *) &PyType_Type, "__subclasses__", "O",
									 (PyObject *) type);
	if (subclasses == NULL)
		return -1;
	for (i = 0; rc == 0 && i < PyList_GET_SIZE(subclasses); i++)
		rc = sb_visit_types((PyTypeObject *) PyList_GET_ITEM(subclasses, i), visit, arg, seen);
	Py_DECREF(subclasses);
	return rc;
}

int
sb_for_each_type(PyTypeObject *root, sb_type_visitor visit, void *arg)
{
	PyObject   *seen = PySet_New(NULL);
	int			rc;

	if (seen == NULL)
		return -1;
	rc = sb_visit_types(root, visit, arg, seen);
	Py_DECREF(seen);
	return rc;
}

static int
sb_wrap_getbuffer(PyTypeObject *type, void *unused)
{
	if (type->tp_as_buffer != NULL &&
		type->tp_as_buffer->bf_getbuffer == sb_array_getbuffer)
		type->tp_as_buffer->bf_getbuffer = sb_checked_array_getbuffer;
	return 0;
}

PyObject *
sb_io_guard_object_buffers(PyObject *self, PyObject *arg)
{
	PyTypeObject *ndarray = (PyTypeObject *) arg;

	(void) self;
	if (!PyType_Check(arg) || ndarray->tp_as_buffer == NULL ||
		ndarray->tp_as_buffer->bf_getbuffer == NULL)
	{
		PyErr_SetString(PyExc_TypeError, "guard_object_buffers() takes numpy's ndarray");
		return NULL;
	}
	if (sb_array_getbuffer == NULL)
		sb_array_getbuffer = ndarray->tp_as_buffer->bf_getbuffer;
	if (sb_for_each_type(ndarray, sb_wrap_getbuffer, NULL) < 0)
		return NULL;
	Py_RETURN_NONE;
}

/*
 * sb_io.guard_object_loops(ufuncs): numpy's loops over Python objects
 * (maximum, minimum, fmax, fmin, clip, logical_and/or, ...) read each
 * element's pointer from the array without a reference, call the
 * element's comparison or truth test (Python code: a functools.cmp_to_key
 * key, a class whose method calls the code's own function), and then use
 * the pointer again (to return it, take a reference, compare it with the
 * next).  That code can replace the array's elements, and the object the
 * loop holds is freed under it: a use after free (maximum.reduce of keys
 * whose comparison empties the array crashed the child).  Each loop that
 * takes an object is wrapped once in the worker, before any child exists:
 * it runs the original loop one element at a time, holding a reference to
 * each input object, and to each output's old object, meanwhile.
 */
typedef void (*sb_ufunc_loop) (char **args, const Py_ssize_t *dimensions,
							   const Py_ssize_t *steps, void *data);

/* the head of numpy's PyUFuncObject (numpy/ufuncobject.h, 1.x) */
typedef struct
{
	PyObject_HEAD
	int			nin,
				nout,
				nargs;
	int			identity;
	sb_ufunc_loop *functions;
	void	  **data;
	int			ntypes;
	int			reserved1;
	const char *name;
	char	   *types;
} sb_ufunc_head;

#define SB_NPY_OBJECT 17
#define SB_LOOP_MAXARGS 8

typedef struct
{
	sb_ufunc_loop function;
	void	   *data;
	int			nargs;
	int			nin;
	char		object_arg[SB_LOOP_MAXARGS];
} sb_object_loop_entry;

static void
sb_object_loop(char **args, const Py_ssize_t *dimensions, const Py_ssize_t *steps,
			   void *data)
{
	sb_object_loop_entry *entry = (sb_object_loop_entry *) data;
	Py_ssize_t	n = dimensions[0];
	Py_ssize_t	one = 1;
	Py_ssize_t	i;
	int			j;
	char	   *here[SB_LOOP_MAXARGS];
	PyObject   *held[SB_LOOP_MAXARGS];

	for (i = 0; i < n; i++)
	{
		for (j = 0; j < entry->nargs; j++)
			here[j] = args[j] + i * steps[j];
		/*
		 * the inputs, and the outputs' old objects: numpy's object loops
		 * store a result with Py_XDECREF(*out); *out = result, so the old
		 * object died (and ran the code's Python: a generator's finally)
		 * while the array still pointed to it; read back then, it was a
		 * reference to an object being freed.  Held here, it dies below,
		 * after the result is stored.
		 */
		for (j = 0; j < entry->nargs; j++)
		{
			held[j] = NULL;
			if (entry->object_arg[j])
			{
				memcpy(&held[j], here[j], sizeof(PyObject *));
				Py_XINCREF(held[j]);
			}
		}
		entry->function(here, &one, steps, entry->data);
		for (j = 0; j < entry->nargs; j++)
			Py_XDECREF(held[j]);

		/*
		 * numpy's loop stops at an element that raised (its caller then
		 * finds the exception set); called again with it set, CPython would
		 * replace it with a SystemError that names no cause
		 */
		if (PyErr_Occurred())
			return;
	}
}

PyObject *
sb_io_guard_object_loops(PyObject *self, PyObject *arg)
{
	PyObject   *seq;
	Py_ssize_t	k;
	int			wrapped = 0;

	(void) self;
	seq = PySequence_Fast(arg, "guard_object_loops() takes a sequence of ufuncs");
	if (seq == NULL)
		return NULL;
	for (k = 0; k < PySequence_Fast_GET_SIZE(seq); k++)
	{
		PyObject   *ufunc = PySequence_Fast_GET_ITEM(seq, k);
		sb_ufunc_head *head = (sb_ufunc_head *) ufunc;
		PyObject   *types;
		long		nin = -1,
					nout = -1,
					ntypes = -1;
		PyObject   *value;
		int			i,
					own_functions = 0;

		value = PyObject_GetAttrString(ufunc, "nin");
		if (value != NULL)
		{
			nin = PyLong_AsLong(value);
			Py_DECREF(value);
		}
		value = PyObject_GetAttrString(ufunc, "nout");
		if (value != NULL)
		{
			nout = PyLong_AsLong(value);
			Py_DECREF(value);
		}
		value = PyObject_GetAttrString(ufunc, "ntypes");
		if (value != NULL)
		{
			ntypes = PyLong_AsLong(value);
			Py_DECREF(value);
		}
		types = PyObject_GetAttrString(ufunc, "types");
		if (PyErr_Occurred() || types == NULL || !PyList_Check(types) ||
			head->nin != nin || head->nout != nout || head->nargs != nin + nout ||
			head->nargs > SB_LOOP_MAXARGS || head->ntypes != ntypes ||
			PyList_GET_SIZE(types) != ntypes || head->functions == NULL ||
			head->data == NULL || head->types == NULL)
		{
			Py_XDECREF(types);
			Py_DECREF(seq);
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_RuntimeError,
							 "numpy's ufunc %R is not laid out as expected", ufunc);
			return NULL;
		}
		for (i = 0; i < head->ntypes; i++)
		{
			const char *sig = PyUnicode_AsUTF8(PyList_GET_ITEM(types, i));
			char	   *typenums = head->types + (Py_ssize_t) i * head->nargs;
			sb_object_loop_entry *entry;
			int			j,
						pos,
						any = 0;

			if (sig == NULL)
			{
				Py_DECREF(types);
				Py_DECREF(seq);
				return NULL;
			}
			/* "OO->O": the type numbers must say the same */
			for (j = 0, pos = 0; j < head->nargs; j++, pos++)
			{
				if (j == head->nin)
					pos += 2;	/* "->" */
				if (sig[pos] == '\0' ||
					(sig[pos] == 'O') != (typenums[j] == SB_NPY_OBJECT))
				{
					Py_DECREF(types);
					Py_DECREF(seq);
					PyErr_Format(PyExc_RuntimeError,
								 "numpy's ufunc %R is not laid out as expected", ufunc);
					return NULL;
				}
				if (j < head->nin && typenums[j] == SB_NPY_OBJECT)
					any = 1;
			}
			if (!any || head->functions[i] == sb_object_loop || head->functions[i] == NULL)
				continue;
			if (!own_functions)
			{
				/*
				 * the ufunc's own array of loops: np.frompyfunc's ufuncs
				 * all point to one static array (their data differ)
				 */
				sb_ufunc_loop *functions = PyMem_RawMalloc(sizeof(sb_ufunc_loop) *
														   head->ntypes);

				if (functions == NULL)
				{
					Py_DECREF(types);
					Py_DECREF(seq);
					return PyErr_NoMemory();
				}
				memcpy(functions, head->functions, sizeof(sb_ufunc_loop) * head->ntypes);
				head->functions = functions;
				own_functions = 1;
			}
			entry = PyMem_RawCalloc(1, sizeof(*entry));
			if (entry == NULL)
			{
				Py_DECREF(types);
				Py_DECREF(seq);
				return PyErr_NoMemory();
			}
			entry->function = head->functions[i];
			entry->data = head->data[i];
			entry->nargs = head->nargs;
			entry->nin = head->nin;
			for (j = 0; j < head->nargs; j++)
				entry->object_arg[j] = typenums[j] == SB_NPY_OBJECT;
			head->data[i] = entry;
			head->functions[i] = sb_object_loop;
			wrapped++;
		}
		Py_DECREF(types);
	}
	Py_DECREF(seq);
	return PyLong_FromLong(wrapped);
}

/*
 * sb_io.guard_object_stores(np.dtype(object)): numpy's functions that store
 * an object into an array of objects (its dtype's setitem, copyswap and
 * copyswapn: a[i] = x, put, itemset, copyto(where=), choose, ...) drop the
 * old object before they store the new one (Py_XDECREF(*slot); *slot = x).
 * The old object's death may run the code's Python (a generator's
 * finally, or a list holding one): reading the slot then (a[i]) took a
 * reference to the object being freed, which the code then held after it
 * was freed (a fake bytearray over all memory, through a freed list's
 * item array).  Each is replaced, once in the worker, by one that stores
 * first and drops the old object after, as CPython's containers do.
 */
typedef PyObject *(*sb_getitem_fn) (void *, void *);
typedef int (*sb_setitem_fn) (PyObject *, void *, void *);
typedef void (*sb_copyswapn_fn) (void *, Py_ssize_t, void *, Py_ssize_t, Py_ssize_t, int, void *);
typedef void (*sb_copyswap_fn) (void *, void *, int, void *);

/* the head of numpy's PyArray_Descr and PyArray_ArrFuncs (1.x) */
typedef struct
{
	PyObject_HEAD
	PyTypeObject *typeobj;
	char		kind,
				type,
				byteorder,
				flags;
	int			type_num,
				elsize,
				alignment;
	void	   *subarray;
	PyObject   *fields,
			   *names;
	struct sb_arrfuncs *f;
} sb_descr_head;

#define SB_NPY_NTYPES_ABI_COMPATIBLE 21

struct sb_arrfuncs
{
	void	   *cast[SB_NPY_NTYPES_ABI_COMPATIBLE];
	sb_getitem_fn getitem;
	sb_setitem_fn setitem;
	sb_copyswapn_fn copyswapn;
	sb_copyswap_fn copyswap;
};

static void
sb_store_object(char *slot, PyObject *value)
{
	PyObject   *old;

	memcpy(&old, slot, sizeof(old));
	Py_XINCREF(value);
	memcpy(slot, &value, sizeof(value));
	Py_XDECREF(old);
}

static int
sb_object_setitem(PyObject *value, void *slot, void *array)
{
	(void) array;
	sb_store_object((char *) slot, value);
	return PyErr_Occurred() ? -1 : 0;
}

static void
sb_object_copyswapn(void *dst, Py_ssize_t dstride, void *src, Py_ssize_t sstride,
					Py_ssize_t n, int swap, void *array)
{
	Py_ssize_t	i;

	(void) swap;
	(void) array;
	if (src == NULL)
		return;
	for (i = 0; i < n; i++)
	{
		PyObject   *value;

		memcpy(&value, (char *) src + i * sstride, sizeof(value));
		sb_store_object((char *) dst + i * dstride, value);
	}
}

static void
sb_object_copyswap(void *dst, void *src, int swap, void *array)
{
	PyObject   *value;

	(void) swap;
	(void) array;
	if (src == NULL)
		return;
	memcpy(&value, src, sizeof(value));
	sb_store_object((char *) dst, value);
}

PyObject *
sb_io_guard_object_stores(PyObject *self, PyObject *arg)
{
	sb_descr_head *descr = (sb_descr_head *) arg;
	struct sb_arrfuncs *f;
	PyObject   *slot[2];
	PyObject   *got;
	PyObject   *probe;

	(void) self;
	probe = PyObject_GetAttrString(arg, "hasobject");
	if (probe == NULL)
		return NULL;
	Py_DECREF(probe);
	if (descr->kind != 'O' || descr->type_num != SB_NPY_OBJECT ||
		descr->elsize != (int) sizeof(PyObject *) || descr->f == NULL)
		goto layout;
	f = descr->f;
	if (f->setitem == sb_object_setitem)
		Py_RETURN_NONE;
	if (f->getitem == NULL || f->setitem == NULL || f->copyswapn == NULL ||
		f->copyswap == NULL)
		goto layout;
	/* each slot does what numpy's does, on a slot of our own */
	probe = PyTuple_New(0);
	if (probe == NULL)
		return NULL;
	slot[0] = probe;
	got = f->getitem(&slot[0], NULL);
	if (got != probe)
	{
		Py_XDECREF(got);
		Py_DECREF(probe);
		goto layout;
	}
	Py_DECREF(got);
	slot[1] = NULL;
	if (f->setitem(probe, &slot[1], NULL) != 0 || slot[1] != probe)
	{
		Py_DECREF(probe);
		goto layout;
	}
	Py_DECREF(probe);			/* the reference setitem took for slot[1] */
	Py_DECREF(probe);
	f->setitem = sb_object_setitem;
	f->copyswapn = sb_object_copyswapn;
	f->copyswap = sb_object_copyswap;
	Py_RETURN_NONE;

layout:
	PyErr_SetString(PyExc_RuntimeError, "numpy's object dtype is not laid out as expected");
	return NULL;
}

/*
 * sb_io.guard_set_counts(): CPython 3.11's set_add_entry remembers a dummy
 * slot it passed, runs the comparison with a colliding key, and then fills
 * that slot, counting one more element: a comparison of the code's that
 * added to the same set meanwhile had filled the slot and counted it too
 * (CPython gh-143546, fixed upstream after 3.11; review 150).  The count
 * then says more elements than the table holds, and the two walks that
 * drop a table's references until they have dropped that many,
 * set_dealloc and set_clear_internal, walk past its end and drop a
 * reference of the next block of memory (another set's element, or a
 * list's, freed while the code still holds it).  Every way into them is
 * wrapped to count the elements the table holds first and give that count
 * (set_recount): freeing, the collector's clear, clear(), __init__ again,
 * and s -= s, s ^= s, s.difference_update(s), s.symmetric_difference_update(s)
 * (review 152 F1, review 153 F1: the first guard covered freeing only).
 * The slots are replaced in the type (subclasses made later inherit them)
 * and in the descriptors that name them (super().__init__() calls the
 * descriptor's), the methods in their PyMethodDef.  A miscount otherwise
 * only makes len() wrong, and pop() of a set it calls non-empty spin (the
 * CPU limit ends that).
 */
static destructor sb_set_dealloc_real;
static inquiry sb_set_clear_real;
static initproc sb_set_init_real;
static binaryfunc sb_set_isub_real;
static binaryfunc sb_set_ixor_real;
static PyCFunction sb_set_clear_method_real;
static PyCFunction sb_set_difference_update_real;
static PyCFunction sb_set_symmetric_update_real;

static void
sb_set_recount(PyObject *self)
{
	PySetObject *so = (PySetObject *) self;
	Py_ssize_t	live = 0;

	for (Py_ssize_t i = 0; i <= so->mask; i++)
	{
		PyObject   *key = so->table[i].key;

		if (key != NULL && key != _PySet_Dummy)
			live++;
	}
	so->used = live;
}

static void
sb_set_dealloc(PyObject *self)
{
	/*
	 * set_dealloc's own trashcan is for a type whose dealloc it is, no
	 * longer set's: the wrapper's keeps freeing deep nests of frozensets
	 * off the C stack (review 154 F3)
	 */
	PyObject_GC_UnTrack(self);
	Py_TRASHCAN_BEGIN(self, sb_set_dealloc);
	sb_set_recount(self);
	sb_set_dealloc_real(self);
	Py_TRASHCAN_END;
}

static int
sb_set_clear(PyObject *self)
{
	sb_set_recount(self);
	return sb_set_clear_real(self);
}

static int
sb_set_init(PyObject *self, PyObject *args, PyObject *kwds)
{
	sb_set_recount(self);
	return sb_set_init_real(self, args, kwds);
}

static PyObject *
sb_set_isub(PyObject *self, PyObject *other)
{
	if (self == other && PyAnySet_Check(self))
		sb_set_recount(self);
	return sb_set_isub_real(self, other);
}

static PyObject *
sb_set_ixor(PyObject *self, PyObject *other)
{
	if (self == other && PyAnySet_Check(self))
		sb_set_recount(self);
	return sb_set_ixor_real(self, other);
}

static PyObject *
sb_set_clear_method(PyObject *self, PyObject *unused)
{
	sb_set_recount(self);
	return sb_set_clear_method_real(self, unused);
}

/*
 * One argument at a time, as CPython takes them, the set recounted just
 * before itself: an earlier argument (a generator, a set whose members'
 * __eq__ runs) may run the code's Python that miscounts it again (review
 * 154 F1: a recount before all the arguments was too early).
 */
static PyObject *
sb_set_difference_update(PyObject *self, PyObject *args)
{
	if (!PyTuple_Check(args))
		return sb_set_difference_update_real(self, args);
	for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++)
	{
		PyObject   *one = PyTuple_Pack(1, PyTuple_GET_ITEM(args, i));
		PyObject   *done;

		if (one == NULL)
			return NULL;
		if (PyTuple_GET_ITEM(args, i) == self)
			sb_set_recount(self);
		done = sb_set_difference_update_real(self, one);
		Py_DECREF(one);
		if (done == NULL)
			return NULL;
		Py_DECREF(done);
	}
	Py_RETURN_NONE;
}

static PyObject *
sb_set_symmetric_update(PyObject *self, PyObject *other)
{
	if (self == other)
		sb_set_recount(self);
	return sb_set_symmetric_update_real(self, other);
}

/* the wrapper descriptor of slot name in set's dict: its function, swapped */
static bool
sb_set_swap_wrapper(const char *name, void *real, void *mine)
{
	PyObject   *descr = PyDict_GetItemString(PySet_Type.tp_dict, name);
	PyWrapperDescrObject *w = (PyWrapperDescrObject *) descr;

	if (descr == NULL || !Py_IS_TYPE(descr, &PyWrapperDescr_Type) || w->d_wrapped != real)
		return false;
	w->d_wrapped = mine;
	return true;
}

/* the C function of method name in set's dict, swapped; its old one */
static PyCFunction
sb_set_swap_method(const char *name, int flags, PyCFunction mine)
{
	PyObject   *descr = PyDict_GetItemString(PySet_Type.tp_dict, name);
	PyMethodDef *def;
	PyCFunction real;

	if (descr == NULL || !Py_IS_TYPE(descr, &PyMethodDescr_Type))
		return NULL;
	def = ((PyMethodDescrObject *) descr)->d_method;
	if (def == NULL || def->ml_flags != flags || def->ml_meth == NULL)
		return NULL;
	real = def->ml_meth;
	def->ml_meth = mine;
	return real;
}

/* subclasses made before: they copied set's slots as they were */
static int
sb_set_rewrap_subclasses(PyTypeObject *type, int depth)
{
	PyObject   *subs = PyObject_CallMethod((PyObject *) type, "__subclasses__", NULL);

	if (subs == NULL || !PyList_Check(subs))
	{
		Py_XDECREF(subs);
		return -1;
	}
	for (Py_ssize_t i = 0; i < PyList_GET_SIZE(subs); i++)
	{
		PyTypeObject *sub = (PyTypeObject *) PyList_GET_ITEM(subs, i);
		PyNumberMethods *num = sub->tp_as_number;

		if (sub->tp_init == sb_set_init_real)
			sub->tp_init = sb_set_init;
		if (num != NULL && num->nb_inplace_subtract == sb_set_isub_real)
			num->nb_inplace_subtract = sb_set_isub;
		if (num != NULL && num->nb_inplace_xor == sb_set_ixor_real)
			num->nb_inplace_xor = sb_set_ixor;
		if (depth < 32 && sb_set_rewrap_subclasses(sub, depth + 1) < 0)
		{
			Py_DECREF(subs);
			return -1;
		}
	}
	Py_DECREF(subs);
	return 0;
}

PyObject *
sb_io_guard_set_counts(PyObject *self, PyObject *unused)
{
	PyNumberMethods *num = PySet_Type.tp_as_number;

	(void) self;
	(void) unused;
	if (PySet_Type.tp_dealloc == sb_set_dealloc)
		Py_RETURN_NONE;
	if (PySet_Type.tp_dealloc == NULL || PyFrozenSet_Type.tp_dealloc != PySet_Type.tp_dealloc ||
		PySet_Type.tp_clear == NULL || PyFrozenSet_Type.tp_clear != PySet_Type.tp_clear ||
		PySet_Type.tp_init == NULL || num == NULL || num->nb_inplace_subtract == NULL ||
		num->nb_inplace_xor == NULL)
		goto layout;
	sb_set_init_real = PySet_Type.tp_init;
	sb_set_isub_real = num->nb_inplace_subtract;
	sb_set_ixor_real = num->nb_inplace_xor;
	if (!sb_set_swap_wrapper("__init__", sb_set_init_real, sb_set_init) ||
		!sb_set_swap_wrapper("__isub__", sb_set_isub_real, sb_set_isub) ||
		!sb_set_swap_wrapper("__ixor__", sb_set_ixor_real, sb_set_ixor))
		goto layout;
	if ((sb_set_clear_method_real = sb_set_swap_method("clear", METH_NOARGS,
													   sb_set_clear_method)) == NULL ||
		(sb_set_difference_update_real = sb_set_swap_method("difference_update", METH_VARARGS,
															sb_set_difference_update)) == NULL ||
		(sb_set_symmetric_update_real = sb_set_swap_method("symmetric_difference_update", METH_O,
														   sb_set_symmetric_update)) == NULL)
		goto layout;
	PySet_Type.tp_init = sb_set_init;
	num->nb_inplace_subtract = sb_set_isub;
	num->nb_inplace_xor = sb_set_ixor;
	sb_set_clear_real = PySet_Type.tp_clear;
	PySet_Type.tp_clear = sb_set_clear;
	PyFrozenSet_Type.tp_clear = sb_set_clear;
	sb_set_dealloc_real = PySet_Type.tp_dealloc;
	PySet_Type.tp_dealloc = sb_set_dealloc;
	PyFrozenSet_Type.tp_dealloc = sb_set_dealloc;
	PyType_Modified(&PySet_Type);
	if (sb_set_rewrap_subclasses(&PySet_Type, 0) < 0)
		return NULL;
	Py_RETURN_NONE;

layout:
	PyErr_SetString(PyExc_RuntimeError, "set is not laid out as expected");
	return NULL;
}

/*
 * sb_io.finalizers_off(types) / sb_io.finalizers_on(): a call's objects
 * die without running the code's Python from a finalizer (a suspended
 * generator's finally, an io object's close() of a class of the code's).
 * numpy's stores into arrays of objects that drop the old object before
 * they store the new one (its casts' move_references, PyArray_PutTo), and
 * any native code like them, left the array pointing to the dying object
 * while that Python ran: it read the object back and kept it past its
 * free.  finalizers_off clears tp_finalize of the types given (and of
 * generators, coroutines and async generators) until finalizers_on; a
 * generator dropped while suspended is then cleared without running its
 * finally (close(), a with statement and contextmanager still run it).
 */
#define SB_MAX_FINALIZERS 1024

static PyTypeObject *sb_finalizer_types[SB_MAX_FINALIZERS];
static destructor sb_finalizers[SB_MAX_FINALIZERS];
static int	sb_finalizer_count;

static int
sb_finalizer_off(PyTypeObject *type)
{
	int			i;

	if (type->tp_finalize == NULL)
		return 0;
	for (i = 0; i < sb_finalizer_count; i++)
		if (sb_finalizer_types[i] == type)
			return 0;
	if (sb_finalizer_count >= SB_MAX_FINALIZERS)
	{
		PyErr_SetString(PyExc_RuntimeError, "finalizers_off(): too many types");
		return -1;
	}
	Py_INCREF(type);
	sb_finalizer_types[sb_finalizer_count] = type;
	sb_finalizers[sb_finalizer_count] = type->tp_finalize;
	sb_finalizer_count++;
	type->tp_finalize = NULL;
	return 0;
}

PyObject *
sb_io_finalizers_off(PyObject *self, PyObject *arg)
{
	PyObject   *seq;
	Py_ssize_t	k;

	(void) self;
	seq = PySequence_Fast(arg, "finalizers_off() takes a sequence of types");
	if (seq == NULL)
		return NULL;
	for (k = 0; k < PySequence_Fast_GET_SIZE(seq); k++)
	{
		if (!PyType_Check(PySequence_Fast_GET_ITEM(seq, k)))
		{
			Py_DECREF(seq);
			PyErr_SetString(PyExc_TypeError, "finalizers_off() takes a sequence of types");
			return NULL;
		}
	}
	if (sb_finalizer_off(&PyGen_Type) < 0 || sb_finalizer_off(&PyCoro_Type) < 0 ||
		sb_finalizer_off(&PyAsyncGen_Type) < 0)
	{
		Py_DECREF(seq);
		return NULL;
	}
	for (k = 0; k < PySequence_Fast_GET_SIZE(seq); k++)
	{
		if (sb_finalizer_off((PyTypeObject *) PySequence_Fast_GET_ITEM(seq, k)) < 0)
		{
			Py_DECREF(seq);
			return NULL;
		}
	}
	Py_DECREF(seq);
	Py_RETURN_NONE;
}

PyObject *
sb_io_finalizers_on(PyObject *self, PyObject *unused)
{
	(void) self;
	(void) unused;
	while (sb_finalizer_count > 0)
	{
		sb_finalizer_count--;
		sb_finalizer_types[sb_finalizer_count]->tp_finalize =
			sb_finalizers[sb_finalizer_count];
		Py_DECREF(sb_finalizer_types[sb_finalizer_count]);
	}
	Py_RETURN_NONE;
}

/*
 * PySequence_Fast, in place of libpython's for the extension modules the
 * worker loads (the executable exports it: -Wl,--export-dynamic-symbol).
 * Of an exact list libpython's returns the list itself, and its callers
 * read PySequence_Fast_ITEMS(seq), the list's item storage, without a
 * reference to the items, while calling the items' methods: numpy's array
 * coercion (np.array(lst), and every numpy or pandas function given a
 * list) asks each element for its __len__/__getitem__/__iter__ (shape
 * discovery) or __str__ (string dtypes).  The code's method that empties
 * or replaces the list frees that storage and the items under numpy: a
 * use after free (np.array([Seq(), ...]) whose __len__ clears the list).
 * Here a list gives a tuple of its items, which holds them and which no
 * code can change; everything else is as in CPython 3.11.
 */
PyObject *
PySequence_Fast(PyObject *v, const char *m)
{
	PyObject   *it,
			   *list;

	if (v == NULL)
	{
		if (!PyErr_Occurred())
			PyErr_SetString(PyExc_SystemError, "null argument to internal routine");
		return NULL;
	}
	if (PyTuple_CheckExact(v))
		return Py_NewRef(v);
	if (PyList_CheckExact(v))
		return PyList_AsTuple(v);
	it = PyObject_GetIter(v);
	if (it == NULL)
	{
		if (PyErr_ExceptionMatches(PyExc_TypeError))
			PyErr_SetString(PyExc_TypeError, m);
		return NULL;
	}
	list = PySequence_List(it);
	Py_DECREF(it);
	return list;
}

/*
 * sb_io.positions_outside(array, low, high): whether any element of a
 * C-contiguous array of integers is below low or at or above high (True or
 * False), or None for an array it does not read (another type, not
 * contiguous: the caller checks with numpy).  One pass, where numpy's
 * min() and max() take two: the checks of positions and group labels that
 * pandas' native code trusts (sb_memory.py) run on every 1M-row groupby.
 */
static bool sb_int64_outside(const int64_t *p, Py_ssize_t n, long long low, long long high);

PyObject *
sb_io_positions_outside(PyObject *self, PyObject *args)
{
	PyObject   *array;
	long long	low;
	long long	high;
	Py_buffer	view;
	const char *format;
	Py_ssize_t	n;
	Py_ssize_t	i;
	long long	lo = LLONG_MAX;
	long long	hi = LLONG_MIN;
	bool		wide_unsigned = false;

	if (!PyArg_ParseTuple(args, "OLL:positions_outside", &array, &low, &high))
		return NULL;
	if (PyObject_GetBuffer(array, &view, PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) != 0)
	{
		PyErr_Clear();
		Py_RETURN_NONE;
	}
	format = view.format ? view.format : "B";
	if (*format == '<' || *format == '=' || *format == '@')
		format++;
	if (format[0] == '\0' || format[1] != '\0' || view.itemsize <= 0)
	{
		PyBuffer_Release(&view);
		Py_RETURN_NONE;
	}
	n = view.len / view.itemsize;
	if (n == 0)
	{
		PyBuffer_Release(&view);
		Py_RETURN_FALSE;
	}
	if ((*format == 'l' || *format == 'q') && view.itemsize == 8)
	{
		bool		outside = sb_int64_outside(view.buf, n, low, high);

		PyBuffer_Release(&view);
		return PyBool_FromLong(outside);
	}
	else if ((*format == 'L' || *format == 'Q') && view.itemsize == 8)
	{
		const uint64_t *p = view.buf;
		uint64_t	ulo = UINT64_MAX;
		uint64_t	uhi = 0;

		for (i = 0; i < n; i++)
		{
			ulo = p[i] < ulo ? p[i] : ulo;
			uhi = p[i] > uhi ? p[i] : uhi;
		}
		wide_unsigned = uhi > (uint64_t) LLONG_MAX;
		lo = (long long) (ulo > (uint64_t) LLONG_MAX ? LLONG_MAX : ulo);
		hi = (long long) (wide_unsigned ? LLONG_MAX : uhi);
	}
	else if (*format == 'i' && view.itemsize == 4)
	{
		const int32_t *p = view.buf;
		int32_t		l32 = INT32_MAX;
		int32_t		h32 = INT32_MIN;

		for (i = 0; i < n; i++)
		{
			l32 = p[i] < l32 ? p[i] : l32;
			h32 = p[i] > h32 ? p[i] : h32;
		}
		lo = l32;
		hi = h32;
	}
	else if (*format == 'I' && view.itemsize == 4)
	{
		const uint32_t *p = view.buf;
		uint32_t	l32 = UINT32_MAX;
		uint32_t	h32 = 0;

		for (i = 0; i < n; i++)
		{
			l32 = p[i] < l32 ? p[i] : l32;
			h32 = p[i] > h32 ? p[i] : h32;
		}
		lo = l32;
		hi = h32;
	}
	else
	{
		PyBuffer_Release(&view);
		Py_RETURN_NONE;
	}
	PyBuffer_Release(&view);
	return PyBool_FromLong(wide_unsigned || lo < low || hi >= high);
}

/*
 * The common case (numpy's intp): vectorised, a block at a time, for the
 * widest vectors the CPU has (the baseline x86-64 has no 64-bit integer
 * compare: plain -O2 code took 0.85 ms for 1M elements, numpy's min() and
 * max() 0.23, this 0.11 on the slower VM).
 */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("O3"), target_clones("avx512f", "avx2", "default")))
#endif
static bool
sb_int64_outside(const int64_t *p, Py_ssize_t n, long long low, long long high)
{
	Py_ssize_t	i = 0;

	while (i < n)
	{
		Py_ssize_t	end = n - i > 4096 ? i + 4096 : n;
		int64_t		lo = INT64_MAX;
		int64_t		hi = INT64_MIN;
		Py_ssize_t	j;

		for (j = i; j < end; j++)
		{
			lo = p[j] < lo ? p[j] : lo;
			hi = p[j] > hi ? p[j] : hi;
		}
		if (lo < low || hi >= high)
			return true;
		i = end;
	}
	return false;
}
