/*
 * sb_dtypeguard.c
 *		numpy's data-type sizes kept inside a C int.
 *
 * numpy (1.24, and its descriptor.c unchanged since) computes a data
 * type's size in a C int with no overflow check: the sum of a structured
 * type's field sizes and offsets ({"offsets": [64, 2**31 - 1]},
 * [("a", "V2147483000"), ("b", "V2000")]), a type string's size
 * ("S2147483648", "U1073741823": strtol truncated to int, then times 4)
 * and a flexible type's size in a tuple (("S", -5), ("U", 2**29)).  The
 * result is a negative itemsize, or a field 2 GiB past a 16-byte record:
 * np.zeros(1, dt)["x"] then reads and writes the heap around the array,
 * which forges any object.  No Python code runs on the way: every
 * dtype= argument of every numpy function reaches the C converter.
 *
 * The worker exports its own PyDict_SetItem, PyUnicode_AsUTF8AndSize,
 * PyLong_AsLong, Py_EnterRecursiveCall, Py_LeaveRecursiveCall and the
 * protocol calls below
 * (-Wl,--export-dynamic-symbol, as PySequence_Fast in sb_memguard.c), so
 * the extension modules it loads bind to them; each calls libpython's
 * and, when the caller's return address lies in numpy's _multiarray_umath,
 * refuses with ValueError:
 *
 * - a field of a structured type ((dtype, offset[, title]) stored into
 *   its fields dict) under a name of a class written in Python (review
 *   177), or with a negative offset or size, or ending past
 *   SB_FIELD_END_MAX: every way numpy builds fields (dict, list, comma
 *   string, canonical copy) stores them so, before it adds the next size
 *   (numpy's dtype.__setstate__ takes a fields dict as given: checked in
 *   Python, sb_memory._guard_dtype_sizes);
 * - a type string whose size is negative or above SB_DTYPE_INT_MAX (the
 *   string numpy's _convert_from_str is about to parse);
 * - an integer numpy reads, directly inside its conversion of a tuple,
 *   list, dict or .dtype attribute to a data type, that is negative or
 *   above SB_DTYPE_INT_MAX (a tuple's size, an offset, an itemsize, a
 *   subarray's dimension).  "Directly" means in the same Python frame as
 *   the conversion began: code the conversion calls back (a .dtype
 *   property, an __index__) runs unchecked.  numpy brackets each of these
 *   conversions with Py_EnterRecursiveCall(" while trying to convert the
 *   given data type from ..."), which is how the worker knows;
 * - directly inside such a conversion, a container numpy reads item by
 *   item (the protocol calls PyMapping_GetItemString, PyObject_GetItem,
 *   PySequence_GetItem, PyObject_Size, PySequence_Size, PyObject_GetIter,
 *   PySequence_Tuple, also exported) of any type but those that run no
 *   Python there (sb_spec_refused): a __getitem__ or __len__ answering
 *   twice made names that are not the fields (reviews 175, 176).
 *
 * libpython's own calls bind inside libpython and are not seen here; the
 * checks run in every child, Python layer on or off, once
 * sb_io.guard_numpy_dtypes has named numpy (src/python/sb_harden.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "sb_worker.h"

/* sizes, offsets and dimensions in a data type: U of this many is < 2 GiB */
#define SB_DTYPE_INT_MAX (INT_MAX / 4)
/*
 * where a field may end: a record of more bytes, cast to str ('U'), is
 * 4 * its size in numpy's C int (convert_datatype.c), unchecked again
 */
#define SB_FIELD_END_MAX SB_DTYPE_INT_MAX
/* conversions nested in numpy's own recursion guard, tracked */
#define SB_NP_LEVELS 4096

typedef int (*SbDictSetItem) (PyObject *, PyObject *, PyObject *);
typedef const char *(*SbAsUTF8AndSize) (PyObject *, Py_ssize_t *);
typedef long (*SbAsLong) (PyObject *);
typedef int (*SbEnterRecursive) (const char *);
typedef void (*SbLeaveRecursive) (void);
typedef PyObject *(*SbMappingGetItem) (PyObject *, const char *);
typedef PyObject *(*SbGetItem) (PyObject *, PyObject *);
typedef PyObject *(*SbSeqGetItem) (PyObject *, Py_ssize_t);
typedef Py_ssize_t (*SbSize) (PyObject *);
typedef PyObject *(*SbUnary) (PyObject *);

/* libpython's, found once at start (RTLD_NEXT: the next object after us) */
static SbDictSetItem sb_real_dict_setitem;
static SbAsUTF8AndSize sb_real_as_utf8;
static SbAsLong sb_real_as_long;
static SbEnterRecursive sb_real_enter;
static SbLeaveRecursive sb_real_leave;
static SbMappingGetItem sb_real_mapping_getitem;
static SbGetItem sb_real_getitem;
static SbSeqGetItem sb_real_seq_getitem;
static SbSize sb_real_size;
static SbSize sb_real_seq_size;
static SbUnary sb_real_getiter;
static SbUnary sb_real_seq_tuple;

/* numpy's _multiarray_umath code: [sb_np_lo, sb_np_lo + sb_np_len) */
static uintptr_t sb_np_lo;
static uintptr_t sb_np_len;
static PyTypeObject *sb_descr_type;		/* np.dtype */
static size_t sb_elsize_offset;			/* of the itemsize in a descriptor */
static size_t sb_elsize_width;			/* 4 (numpy 1.x: int) or 8 */

/* numpy's open Py_EnterRecursiveCall levels: a data-type conversion? */
typedef struct SbNpLevel
{
	bool		dtype;
	void	   *frame;			/* the Python frame it began in */
} SbNpLevel;

static SbNpLevel sb_np_levels[SB_NP_LEVELS];
static int	sb_np_depth;

static void *
sb_next_symbol(const char *name)
{
	void	   *p = dlsym(RTLD_NEXT, name);

	if (p == NULL)
	{
		/* without libpython's own the worker cannot run at all */
		fprintf(stderr, "pysandbox-worker: could not find libpython's %s\n", name);
		abort();
	}
	return p;
}

__attribute__((constructor))
static void
sb_dtypeguard_bind(void)
{
	sb_real_dict_setitem = (SbDictSetItem) sb_next_symbol("PyDict_SetItem");
	sb_real_as_utf8 = (SbAsUTF8AndSize) sb_next_symbol("PyUnicode_AsUTF8AndSize");
	sb_real_as_long = (SbAsLong) sb_next_symbol("PyLong_AsLong");
	sb_real_enter = (SbEnterRecursive) sb_next_symbol("Py_EnterRecursiveCall");
	sb_real_leave = (SbLeaveRecursive) sb_next_symbol("Py_LeaveRecursiveCall");
	sb_real_mapping_getitem = (SbMappingGetItem) sb_next_symbol("PyMapping_GetItemString");
	sb_real_getitem = (SbGetItem) sb_next_symbol("PyObject_GetItem");
	sb_real_seq_getitem = (SbSeqGetItem) sb_next_symbol("PySequence_GetItem");
	sb_real_size = (SbSize) sb_next_symbol("PyObject_Size");
	sb_real_seq_size = (SbSize) sb_next_symbol("PySequence_Size");
	sb_real_getiter = (SbUnary) sb_next_symbol("PyObject_GetIter");
	sb_real_seq_tuple = (SbUnary) sb_next_symbol("PySequence_Tuple");
}

static inline bool
sb_from_numpy(void *return_address)
{
	return (uintptr_t) return_address - sb_np_lo < sb_np_len;
}

static void *
sb_current_frame(void)
{
	PyThreadState *ts = _PyThreadState_UncheckedGet();

	return (ts != NULL && ts->cframe != NULL) ? (void *) ts->cframe->current_frame : NULL;
}

/* the signed integer of width bytes (4 or 8) at p */
static long long
sb_read_int(const char *p, size_t width)
{
	if (width == 4)
	{
		int32_t		v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
	else
	{
		int64_t		v;

		memcpy(&v, p, sizeof(v));
		return v;
	}
}

static long long
sb_descr_elsize(PyObject *descr)
{
	return sb_read_int((const char *) descr + sb_elsize_offset, sb_elsize_width);
}

/*
 * A (dtype, offset[, title]) tuple numpy stores into a fields dict: is the
 * field inside what a C int can count?  Sets ValueError when it is not.
 */
static bool
sb_field_refused(PyObject *value)
{
	Py_ssize_t	n = PyTuple_GET_SIZE(value);
	PyObject   *descr;
	PyObject   *offset_obj;
	long long	offset;
	long long	elsize;
	int			overflow;

	if (n < 2 || n > 3 || sb_descr_type == NULL)
		return false;
	descr = PyTuple_GET_ITEM(value, 0);
	offset_obj = PyTuple_GET_ITEM(value, 1);
	if (descr == NULL || offset_obj == NULL ||
		!PyObject_TypeCheck(descr, sb_descr_type) || !PyLong_Check(offset_obj))
		return false;
	offset = PyLong_AsLongLongAndOverflow(offset_obj, &overflow);
	if (offset == -1 && PyErr_Occurred())
		return true;
	elsize = sb_descr_elsize(descr);
	if (overflow == 0 && offset >= 0 && elsize >= 0 && offset + elsize <= SB_FIELD_END_MAX)
		return false;
	PyErr_Format(PyExc_ValueError,
				 "a numpy data type with a field of %lld bytes at offset %lld is not "
				 "allowed in the sandbox: a data type may hold at most %d bytes "
				 "(numpy's size arithmetic overflows past that); use smaller fields, "
				 "offsets or itemsize",
				 elsize, overflow ? (long long) LLONG_MAX : offset, SB_FIELD_END_MAX);
	return true;
}

/*
 * The name a (dtype, offset[, title]) tuple is stored under in a fields
 * dict: refused (TypeError set) when it is of a class written in Python.
 * numpy's field view (arr[["a", "b"]]) checks a list's items are str, then
 * reads the list again to build the view: a list subclass answered with an
 * object hashing as "a" that said "equal" once (found as field a) and then
 * "not equal" (no duplicate), and the view had field a twice, two object
 * fields over one pointer: an array of that dtype dropped an object's
 * reference twice (a freed object reused: review 177 F1).  Names are str
 * (numpy's str_ from an array of names passes: a static type).
 */
static bool
sb_field_key_refused(PyObject *key, PyObject *value)
{
	Py_ssize_t	n = PyTuple_GET_SIZE(value);

	if (key == NULL || n < 2 || n > 3 || sb_descr_type == NULL ||
		!(Py_TYPE(key)->tp_flags & Py_TPFLAGS_HEAPTYPE) ||
		!PyObject_TypeCheck(PyTuple_GET_ITEM(value, 0), sb_descr_type) ||
		!PyLong_Check(PyTuple_GET_ITEM(value, 1)))
		return false;
	PyErr_Format(PyExc_TypeError,
				 "a numpy field named by an object of class \"%.100s\" is not allowed in the "
				 "sandbox: field names are str",
				 Py_TYPE(key)->tp_name);
	return true;
}

int
PyDict_SetItem(PyObject *op, PyObject *key, PyObject *value)
{
	if (sb_from_numpy(__builtin_return_address(0)) && value != NULL &&
		PyTuple_CheckExact(value) &&
		(sb_field_refused(value) || sb_field_key_refused(key, value)))
		return -1;
	return sb_real_dict_setitem(op, key, value);
}

/*
 * A type string as numpy's _convert_from_str reads it: an optional byte
 * order, a flexible kind (S, a, U, V) and a size strtol takes whole.  The
 * size in bytes (a U character takes 4), or -1 when the string is not of
 * that form.
 */
static long long
sb_typestr_size(const char *s, Py_ssize_t len)
{
	char	   *end;
	long		v;

	if (len > 0 && (s[0] == '<' || s[0] == '>' || s[0] == '=' || s[0] == '|'))
	{
		s++;
		len--;
	}
	if (len < 2 || (s[0] != 'S' && s[0] != 'a' && s[0] != 'U' && s[0] != 'V'))
		return -1;
	errno = 0;
	v = strtol(s + 1, &end, 10);
	if (end - s != len)
		return -1;
	if (errno == ERANGE || v < 0 || v > LLONG_MAX / 4)
		return LLONG_MAX;
	return s[0] == 'U' ? (long long) v * 4 : v;
}

const char *
PyUnicode_AsUTF8AndSize(PyObject *unicode, Py_ssize_t *psize)
{
	void	   *from = __builtin_return_address(0);
	Py_ssize_t	len = 0;
	const char *s = sb_real_as_utf8(unicode, &len);
	long long	size;

	if (s != NULL && sb_from_numpy(from) && sb_descr_type != NULL &&
		(size = sb_typestr_size(s, len)) > SB_DTYPE_INT_MAX)
	{
		PyErr_Format(PyExc_ValueError,
					 "numpy data type \"%.40s\" is not allowed in the sandbox: a data type "
					 "may hold at most %d bytes (%d characters of \"U\")", s,
					 SB_DTYPE_INT_MAX, SB_DTYPE_INT_MAX / 4);
		return NULL;
	}
	if (s != NULL && psize != NULL)
		*psize = len;
	return s;
}

long
PyLong_AsLong(PyObject *obj)
{
	void	   *from = __builtin_return_address(0);
	long		v = sb_real_as_long(obj);
	SbNpLevel  *top;

	if (sb_np_depth == 0 || !sb_from_numpy(from) || (v == -1 && PyErr_Occurred()))
		return v;
	if (sb_np_depth > SB_NP_LEVELS)
		top = NULL;				/* deeper than tracked: checked, to be safe */
	else
	{
		top = &sb_np_levels[sb_np_depth - 1];
		if (!top->dtype || top->frame != sb_current_frame())
			return v;
	}
	if (v >= 0 && v <= SB_DTYPE_INT_MAX)
		return v;
	PyErr_Format(PyExc_ValueError,
				 "%ld in a numpy data type is not allowed in the sandbox: sizes, "
				 "offsets, itemsizes and dimensions in a data type must be between "
				 "0 and %d",
				 v, SB_DTYPE_INT_MAX);
	return -1;
}

/*
 * Is this call numpy's, directly inside its conversion of a data type (as
 * PyLong_AsLong above tells)?
 */
static bool
sb_in_dtype_conversion(void *from)
{
	SbNpLevel  *top;

	if (sb_np_depth == 0 || !sb_from_numpy(from))
		return false;
	if (sb_np_depth > SB_NP_LEVELS)
		return true;			/* deeper than tracked: checked, to be safe */
	top = &sb_np_levels[sb_np_depth - 1];
	return top->dtype && top->frame == sb_current_frame();
}

/*
 * What numpy is about to read item by item inside a data type's
 * conversion, refused (TypeError set) unless it is of a type that runs no
 * Python there: exact lists, tuples, dicts, numbers, strings and numpy's
 * own objects.  numpy reads a dict spec's "names" once for their number and
 * again by index after converting each format, and keeps the names list as
 * it is then: a list subclass's __getitem__ or __len__ that answered
 * differently made names that are not the fields (an int field over an
 * object field's pointer, numpy's overlap check walking the names: review
 * 175 F1), and so did C containers that call the code's Python (a
 * mappingproxy over a class's namespace, a defaultdict's default factory:
 * review 176 F1; a weakref proxy forwards to its referent): an allowlist,
 * not a list of the ways in.
 */
static bool
sb_spec_refused(PyObject *o)
{
	PyTypeObject *t;

	if (o == NULL)
		return false;
	t = Py_TYPE(o);
	if (t == &PyList_Type || t == &PyTuple_Type || t == &PyDict_Type ||
		t == &PyUnicode_Type || t == &PyLong_Type || t == &PyFloat_Type ||
		t == &PyBool_Type || t == &PyBytes_Type || t == &PyRange_Type || o == Py_None)
		return false;
	/* numpy's arrays and scalars (its static types) run no Python for this */
	if (!(t->tp_flags & Py_TPFLAGS_HEAPTYPE) && strncmp(t->tp_name, "numpy.", 6) == 0)
		return false;
	PyErr_Format(PyExc_TypeError,
				 "a numpy data type given with an object of class \"%.100s\" is not allowed "
				 "in the sandbox: numpy reads it in the middle of its own work, where no "
				 "Python may run; give its names, formats, offsets and titles as plain "
				 "lists, tuples and dicts (list(df.columns), dict(d))",
				 t->tp_name);
	return true;
}

PyObject *
PyMapping_GetItemString(PyObject *o, const char *key)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return NULL;
	return sb_real_mapping_getitem(o, key);
}

PyObject *
PyObject_GetItem(PyObject *o, PyObject *key)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return NULL;
	return sb_real_getitem(o, key);
}

PyObject *
PySequence_GetItem(PyObject *o, Py_ssize_t i)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return NULL;
	return sb_real_seq_getitem(o, i);
}

Py_ssize_t
PyObject_Size(PyObject *o)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return -1;
	return sb_real_size(o);
}

Py_ssize_t
PySequence_Size(PyObject *o)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return -1;
	return sb_real_seq_size(o);
}

PyObject *
PyObject_GetIter(PyObject *o)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return NULL;
	return sb_real_getiter(o);
}

PyObject *
PySequence_Tuple(PyObject *o)
{
	if (sb_in_dtype_conversion(__builtin_return_address(0)) && sb_spec_refused(o))
		return NULL;
	return sb_real_seq_tuple(o);
}

int
Py_EnterRecursiveCall(const char *where)
{
	void	   *from = __builtin_return_address(0);
	static const char dtype_where[] = " while trying to convert the given data type from";
	int			r = sb_real_enter(where);

	if (r == 0 && sb_from_numpy(from))
	{
		if (sb_np_depth < SB_NP_LEVELS)
		{
			sb_np_levels[sb_np_depth].dtype = where != NULL &&
				strncmp(where, dtype_where, sizeof(dtype_where) - 1) == 0;
			sb_np_levels[sb_np_depth].frame = sb_current_frame();
		}
		sb_np_depth++;
	}
	return r;
}

void
Py_LeaveRecursiveCall(void)
{
	if (sb_np_depth > 0 && sb_from_numpy(__builtin_return_address(0)))
		sb_np_depth--;
	sb_real_leave();
}

/* the loaded object holding addr: its code segments' bounds */
typedef struct SbFindCode
{
	uintptr_t	base;
	uintptr_t	lo;
	uintptr_t	hi;
} SbFindCode;

static int
sb_find_code(struct dl_phdr_info *info, size_t size, void *arg)
{
	SbFindCode *find = arg;
	int			i;

	if (info->dlpi_addr != find->base)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)
	{
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X))
		{
			uintptr_t	lo = info->dlpi_addr + ph->p_vaddr;
			uintptr_t	hi = lo + ph->p_memsz;

			if (find->lo == 0 || lo < find->lo)
				find->lo = lo;
			if (hi > find->hi)
				find->hi = hi;
		}
	}
	return 1;
}

/*
 * sb_io.guard_numpy_dtypes(dtype_type, probes): start the checks, once.
 * dtype_type is np.dtype, a static type of _multiarray_umath (which
 * locates numpy's code); probes are data types of distinct known
 * itemsizes, which locate the itemsize in numpy's descriptor struct.
 */
PyObject *
sb_io_guard_numpy_dtypes(PyObject *self, PyObject *args)
{
	PyObject   *type;
	PyObject   *probes;
	Dl_info		info;
	SbFindCode	find = {0, 0, 0};
	size_t		offset;
	size_t		found_offset = 0;
	size_t		found_width = 0;
	int			matches = 0;

	if (!PyArg_ParseTuple(args, "O!O!:guard_numpy_dtypes", &PyType_Type, &type,
						  &PyTuple_Type, &probes))
		return NULL;
	/* once, in the worker: never moved or switched off after */
	if (sb_descr_type != NULL)
	{
		PyErr_SetString(PyExc_RuntimeError, "numpy's data types are guarded already");
		return NULL;
	}
	if (PyTuple_GET_SIZE(probes) < 3)
	{
		PyErr_SetString(PyExc_ValueError, "guard_numpy_dtypes() needs three probes");
		return NULL;
	}
	if (dladdr(type, &info) == 0 || info.dli_fbase == NULL)
	{
		PyErr_SetString(PyExc_RuntimeError, "numpy's module could not be located");
		return NULL;
	}
	find.base = (uintptr_t) info.dli_fbase;
	dl_iterate_phdr(sb_find_code, &find);
	if (find.hi <= find.lo)
	{
		PyErr_SetString(PyExc_RuntimeError, "numpy's code could not be located");
		return NULL;
	}

	/* the one place, 4 or 8 bytes wide, holding every probe's itemsize */
	for (offset = sizeof(PyObject); offset + 8 <= 96; offset += 4)
	{
		size_t		width;

		for (width = 4; width <= 8; width += 4)
		{
			Py_ssize_t	k;
			bool		all = true;

			if (offset % width != 0)
				continue;
			for (k = 0; k < PyTuple_GET_SIZE(probes) && all; k++)
			{
				PyObject   *probe = PyTuple_GET_ITEM(probes, k);
				PyObject   *itemsize;
				long long	want;
				long long	have;

				if (!PyObject_TypeCheck(probe, (PyTypeObject *) type))
				{
					PyErr_SetString(PyExc_TypeError, "guard_numpy_dtypes() probes must be dtypes");
					return NULL;
				}
				itemsize = PyObject_GetAttrString(probe, "itemsize");
				if (itemsize == NULL)
					return NULL;
				want = PyLong_AsLongLong(itemsize);
				Py_DECREF(itemsize);
				if (want == -1 && PyErr_Occurred())
					return NULL;
				have = sb_read_int((const char *) probe + offset, width);
				all = have == want;
			}
			if (all)
			{
				matches++;
				found_offset = offset;
				found_width = width;
			}
		}
	}
	if (matches != 1)
	{
		PyErr_SetString(PyExc_RuntimeError,
						"numpy's data-type struct is not laid out as pysandbox expects");
		return NULL;
	}
	Py_INCREF(type);
	sb_descr_type = (PyTypeObject *) type;
	sb_elsize_offset = found_offset;
	sb_elsize_width = found_width;
	sb_np_depth = 0;
	sb_np_lo = find.lo;
	sb_np_len = find.hi - find.lo;
	Py_RETURN_NONE;
}
