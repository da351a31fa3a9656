/*
 * sb_hashguard.c
 *		The hashes of objects hashed by their address, keyed.
 *
 * CPython hashes an object without a hash of its own (and a class, a
 * function, a bound or builtin method, a method-wrapper) by its address;
 * sb_addrguard.c keeps addresses out of id() and the reprs, and this keeps
 * them out of hash() and of the order of sets and dicts.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "sb_worker.h"

/*
 * Identity hashes.  An object without a hash of its own hashes by its
 * address (_Py_HashPointer: the address rotated by 4 bits), and the order
 * of a set of such objects shows a dozen bits of each; hashed by the code
 * (or through a tuple, a dataclass) the whole address came back (review
 * 88 F5: the set order, then the masked hash() of chosen values as an
 * oracle, gave any object's address in 0.2 s).  So the hash itself is
 * keyed: SipHash (CPython's own, keyed by its secret) of the address and
 * a key drawn here; a bound method's and a method-wrapper's hashes, which
 * combine addresses in C, likewise.  Done right after the interpreter
 * starts, before anything keys a dict by such an object (a dict stores
 * each key's hash: one changed under it would not be found again).
 */
static uint64_t sb_hash_key;
static hashfunc sb_pointer_hash;	/* object's own: _Py_HashPointer */
static hashfunc sb_cfunction_hash_original;
static hashfunc sb_method_hash_original;
static hashfunc sb_wrapper_hash_original;

static Py_hash_t
sb_keyed_hash(uintptr_t a, uintptr_t b)
{
	unsigned char buf[8 + 2 * sizeof(uintptr_t)];
	Py_hash_t	h;

	memcpy(buf, &sb_hash_key, 8);
	memcpy(buf + 8, &a, sizeof(a));
	memcpy(buf + 8 + sizeof(a), &b, sizeof(b));
	h = _Py_HashBytes(buf, sizeof(buf));
	return h == -1 ? -2 : h;
}

static Py_hash_t
sb_identity_hash(PyObject *obj)
{
	return sb_keyed_hash((uintptr_t) obj, 0);
}

/* a builtin method: its self and its C function, as meth_hash combines them */
static Py_hash_t
sb_cfunction_hash(PyObject *obj)
{
	PyCFunctionObject *f = (PyCFunctionObject *) obj;

	return sb_keyed_hash((uintptr_t) f->m_self, (uintptr_t) f->m_ml->ml_meth);
}

/* a bound method: its self, and its function's hash (method_hash) */
static Py_hash_t
sb_method_hash(PyObject *obj)
{
	PyMethodObject *m = (PyMethodObject *) obj;
	Py_hash_t	func = PyObject_Hash(m->im_func);

	if (func == -1)
		return -1;
	return sb_keyed_hash((uintptr_t) m->im_self, (uintptr_t) func);
}

/* a method-wrapper (descrobject.c's wrapperobject): its descriptor and self */
typedef struct
{
	PyObject_HEAD
	PyWrapperDescrObject *descr;
	PyObject   *self;
} sb_wrapperobject;

static Py_hash_t
sb_wrapper_hash(PyObject *obj)
{
	sb_wrapperobject *w = (sb_wrapperobject *) obj;

	return sb_keyed_hash((uintptr_t) w->self, (uintptr_t) w->descr);
}

static int
sb_hash_type(PyTypeObject *type, void *unused)
{
	PyObject   *descr;

	if (type->tp_hash == sb_pointer_hash)
		type->tp_hash = sb_identity_hash;
	else if (type->tp_hash == sb_cfunction_hash_original)
		type->tp_hash = sb_cfunction_hash;
	else if (type->tp_hash == sb_method_hash_original)
		type->tp_hash = sb_method_hash;
	else if (type->tp_hash == sb_wrapper_hash_original)
		type->tp_hash = sb_wrapper_hash;
	/*
	 * the slot wrappers (object.__hash__, which classes made later take;
	 * those of methods, builtin methods and method-wrappers: review 90)
	 */
	if (type->tp_dict != NULL)
	{
		descr = PyDict_GetItemString(type->tp_dict, "__hash__");
		if (descr != NULL && Py_IS_TYPE(descr, &PyWrapperDescr_Type))
		{
			PyWrapperDescrObject *w = (PyWrapperDescrObject *) descr;

			if (w->d_wrapped == (void *) sb_pointer_hash)
				w->d_wrapped = (void *) sb_identity_hash;
			else if (w->d_wrapped == (void *) sb_cfunction_hash_original)
				w->d_wrapped = (void *) sb_cfunction_hash;
			else if (w->d_wrapped == (void *) sb_method_hash_original)
				w->d_wrapped = (void *) sb_method_hash;
			else if (w->d_wrapped == (void *) sb_wrapper_hash_original)
				w->d_wrapped = (void *) sb_wrapper_hash;
		}
	}

	return 0;
}

/*
 * The sets and dicts made while the interpreter started hold such keys
 * under their old hashes (os.supports_fd: review 89): each is filled again
 * in place.  Sets of weak references need not be (a weak reference keeps
 * the hash it was first asked for; abc's caches, the only ones, are
 * checked by iteration or filled again on a miss).  Only containers the
 * garbage collector tracks are seen: a dict whose keys and values are all
 * untracked ({None: 1}, {int: "i"}) or a frozenset made at start-up would
 * be missed; a walk of every object reachable in the worker (review 90)
 * found none holding a key it could no longer find.
 */
static int
sb_rehash_containers(void)
{
	PyObject   *gc;
	PyObject   *objects;
	Py_ssize_t	i;
	int			rc = 0;

	gc = PyImport_ImportModule("gc");
	if (gc == NULL)
		return -1;
	objects = PyObject_CallMethod(gc, "get_objects", NULL);
	Py_DECREF(gc);
	if (objects == NULL)
		return -1;
	for (i = 0; rc == 0 && i < PyList_GET_SIZE(objects); i++)
	{
		PyObject   *obj = PyList_GET_ITEM(objects, i);
		PyObject   *items;
		Py_ssize_t	j;

		if (PySet_CheckExact(obj) && PySet_GET_SIZE(obj) > 0)
		{
			items = PySequence_List(obj);
			if (items == NULL || PySet_Clear(obj) < 0)
				rc = -1;
			for (j = 0; rc == 0 && j < PyList_GET_SIZE(items); j++)
				rc = PySet_Add(obj, PyList_GET_ITEM(items, j));
			Py_XDECREF(items);
		}
		else if (PyDict_CheckExact(obj) && PyDict_GET_SIZE(obj) > 0)
		{
			PyObject   *key;
			PyObject   *value;
			Py_ssize_t	pos = 0;
			bool		all_str = true;

			while (PyDict_Next(obj, &pos, &key, &value))
				if (!PyUnicode_CheckExact(key))
				{
					all_str = false;
					break;
				}
			if (all_str)
				continue;
			items = PyDict_Items(obj);
			if (items == NULL)
				rc = -1;
			else
				PyDict_Clear(obj);
			for (j = 0; rc == 0 && j < PyList_GET_SIZE(items); j++)
			{
				PyObject   *pair = PyList_GET_ITEM(items, j);

				rc = PyDict_SetItem(obj, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
			}
			Py_XDECREF(items);
		}
	}
	Py_DECREF(objects);
	return rc;
}

/* In the worker, right after Py_Initialize: key every identity hash. */
int
sb_guard_identity_hashes(void)
{
	int			rc;

	if (sb_getrandom_all(&sb_hash_key, sizeof(sb_hash_key)) < 0)
		return -1;
	sb_pointer_hash = PyBaseObject_Type.tp_hash;
	sb_cfunction_hash_original = PyCFunction_Type.tp_hash;
	sb_method_hash_original = PyMethod_Type.tp_hash;
	sb_wrapper_hash_original = _PyMethodWrapper_Type.tp_hash;
	if (sb_pointer_hash == NULL || sb_cfunction_hash_original == NULL ||
		sb_method_hash_original == NULL || sb_wrapper_hash_original == NULL)
		return -1;
	rc = sb_for_each_type(&PyBaseObject_Type, sb_hash_type, NULL);
	if (rc == 0)
		rc = sb_rehash_containers();
	return rc;
}
