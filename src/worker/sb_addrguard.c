/*
 * sb_addrguard.c
 *		Where objects live in memory, kept from the code.
 *
 * Every escape from the Python layer through a memory-safety bug of
 * CPython or a library (reviews 73, 76, 78, 82) forged an object inside a
 * bytes object whose address it read with id(), and found the types it
 * imitated by hash(bytearray) or the repr of a function.  An address is
 * no secret in CPython: id() is the address, an object's default hash is
 * its address rotated, and the reprs of functions, methods, memoryviews,
 * code, cells, weak references, generators and of every object without a
 * repr of its own print it ("<function f at 0x7f...>").
 *
 * Here the worker, before any child exists, makes each of those reprs
 * print a masked address instead: the address through a keyed 64-bit
 * permutation (four Feistel rounds of SipHash keyed by CPython's own
 * random hash secret and a key drawn here), the same one the code's id()
 * gives (src/python/sb_guard.py sb_id), so "at 0x..." still matches
 * hex(id(x)) and the numbers stay distinct and stable.  Each original
 * repr function is kept and called; only the text after "at 0x" (or
 * hashlib's "@ 0x") changes.  The pointer is replaced in every type that
 * copied it (subclasses, static types readied before, the slot wrappers
 * object.__repr__ and the like, which new classes take theirs from).
 * Hashes by address are keyed in sb_hashguard.c.
 *
 * What stays: native code that formats an address itself in another way.
 * The worker's children share one address layout (they are its forks),
 * so the key is the same in all of them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "sb_worker.h"

#define SB_MASK_ROUNDS 4
#define SB_REPR_SLOTS 32
#define SB_LENGTH(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t sb_mask_key[SB_MASK_ROUNDS];
static bool sb_mask_ready;

static int
sb_mask_init(void)
{
	if (sb_mask_ready)
		return 0;
	if (sb_getrandom_all(sb_mask_key, sizeof(sb_mask_key)) < 0)
	{
		PyErr_SetString(PyExc_OSError, "no random bytes for the address mask");
		return -1;
	}
	sb_mask_ready = true;
	return 0;
}

/* a keyed permutation of 64-bit numbers: Feistel rounds of SipHash */
static uint64_t
sb_mask(uint64_t value)
{
	uint32_t	left = (uint32_t) (value >> 32);
	uint32_t	right = (uint32_t) value;
	int			i;

	for (i = 0; i < SB_MASK_ROUNDS; i++)
	{
		unsigned char buf[12];
		uint32_t	next;

		memcpy(buf, &sb_mask_key[i], 8);
		memcpy(buf + 8, &right, 4);
		next = left ^ (uint32_t) _Py_HashBytes(buf, sizeof(buf));
		left = right;
		right = next;
	}
	return ((uint64_t) left << 32) | right;
}

/*
 * The original's text with each "at 0x<hex>" (or "@ 0x<hex>", hashlib's)
 * masked.  The format strings of every repr wrapped here put " at " or
 * " @ " before their %p; names before it are the code's, and a crafted
 * one only gets its own digits masked.
 */
static PyObject *
sb_mask_text(PyObject *text)
{
	PyObject   *bytes;
	PyObject   *result;
	const char *s;
	Py_ssize_t	n;
	Py_ssize_t	i;
	char	   *out;
	Py_ssize_t	o = 0;

	if (text == NULL || !PyUnicode_Check(text))
		return text;
	bytes = PyUnicode_AsEncodedString(text, "utf-8", "surrogatepass");
	Py_DECREF(text);
	if (bytes == NULL)
		return NULL;
	s = PyBytes_AS_STRING(bytes);
	n = PyBytes_GET_SIZE(bytes);
	/*
	 * a masked number is at most 18 characters where at least 5 were
	 * ("0x", a digit, and the two of the "at " or "@ " before the next)
	 */
	out = PyMem_Malloc(4 * n + 32);
	if (out == NULL)
	{
		Py_DECREF(bytes);
		return PyErr_NoMemory();
	}
	for (i = 0; i < n;)
	{
		if (i >= 2 && s[i] == '0' && i + 2 < n && s[i + 1] == 'x' &&
			((i >= 3 && memcmp(s + i - 3, "at ", 3) == 0) ||
			 memcmp(s + i - 2, "@ ", 2) == 0))
		{
			Py_ssize_t	j = i + 2;
			uint64_t	value = 0;

			while (j < n && j - (i + 2) < 16 && isxdigit((unsigned char) s[j]))
			{
				char		c = s[j];

				value = value * 16 +
					(uint64_t) (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
				j++;
			}
			if (j > i + 2 && (j >= n || !isxdigit((unsigned char) s[j])))
			{
				o += sprintf(out + o, "0x%llx", (unsigned long long) sb_mask(value));
				i = j;
				continue;
			}
		}
		out[o++] = s[i++];
	}
	result = PyUnicode_Decode(out, o, "utf-8", "surrogatepass");
	PyMem_Free(out);
	Py_DECREF(bytes);
	return result;
}

/* the original repr functions, and one wrapper for each */
static reprfunc sb_repr_original[SB_REPR_SLOTS];
static int	sb_repr_count;

#define SB_REPR_WRAPPER(i) \
	static PyObject *sb_masked_repr_##i(PyObject *obj) \
	{ return sb_mask_text(sb_repr_original[i](obj)); }
SB_REPR_WRAPPER(0)
SB_REPR_WRAPPER(1)
SB_REPR_WRAPPER(2)
SB_REPR_WRAPPER(3)
SB_REPR_WRAPPER(4)
SB_REPR_WRAPPER(5)
SB_REPR_WRAPPER(6)
SB_REPR_WRAPPER(7)
SB_REPR_WRAPPER(8)
SB_REPR_WRAPPER(9)
SB_REPR_WRAPPER(10)
SB_REPR_WRAPPER(11)
SB_REPR_WRAPPER(12)
SB_REPR_WRAPPER(13)
SB_REPR_WRAPPER(14)
SB_REPR_WRAPPER(15)
SB_REPR_WRAPPER(16)
SB_REPR_WRAPPER(17)
SB_REPR_WRAPPER(18)
SB_REPR_WRAPPER(19)
SB_REPR_WRAPPER(20)
SB_REPR_WRAPPER(21)
SB_REPR_WRAPPER(22)
SB_REPR_WRAPPER(23)
SB_REPR_WRAPPER(24)
SB_REPR_WRAPPER(25)
SB_REPR_WRAPPER(26)
SB_REPR_WRAPPER(27)
SB_REPR_WRAPPER(28)
SB_REPR_WRAPPER(29)
SB_REPR_WRAPPER(30)
SB_REPR_WRAPPER(31)

static const reprfunc sb_repr_wrapper[SB_REPR_SLOTS] = {
	sb_masked_repr_0, sb_masked_repr_1, sb_masked_repr_2, sb_masked_repr_3,
	sb_masked_repr_4, sb_masked_repr_5, sb_masked_repr_6, sb_masked_repr_7,
	sb_masked_repr_8, sb_masked_repr_9, sb_masked_repr_10, sb_masked_repr_11,
	sb_masked_repr_12, sb_masked_repr_13, sb_masked_repr_14, sb_masked_repr_15,
	sb_masked_repr_16, sb_masked_repr_17, sb_masked_repr_18, sb_masked_repr_19,
	sb_masked_repr_20, sb_masked_repr_21, sb_masked_repr_22, sb_masked_repr_23,
	sb_masked_repr_24, sb_masked_repr_25, sb_masked_repr_26, sb_masked_repr_27,
	sb_masked_repr_28, sb_masked_repr_29, sb_masked_repr_30, sb_masked_repr_31,
};

/* -1 when fn is no original; an original's wrapper is no original */
static int
sb_repr_index(reprfunc fn)
{
	int			i;

	for (i = 0; i < sb_repr_count; i++)
		if (sb_repr_original[i] == fn)
			return i;
	return -1;
}

static bool
sb_is_wrapper(reprfunc fn)
{
	int			i;

	for (i = 0; i < SB_REPR_SLOTS; i++)
		if (sb_repr_wrapper[i] == fn)
			return true;
	return false;
}

static int
sb_repr_add(reprfunc fn)
{
	if (fn == NULL || sb_is_wrapper(fn) || sb_repr_index(fn) >= 0)
		return 0;
	if (sb_repr_count == SB_REPR_SLOTS)
	{
		PyErr_SetString(PyExc_RuntimeError, "too many reprs to mask");
		return -1;
	}
	sb_repr_original[sb_repr_count++] = fn;
	return 0;
}

/* types whose own repr prints an address, found by name (Cython's, locks) */
static bool
sb_prints_address(const char *name)
{
	static const char *const suffixes[] = {
		"cython_function_or_method", "_thread.lock", "_thread.RLock",
		"fused_cython_function",
		/* "Generator(PCG64) at 0x7F...": numpy's own __repr__ with id() */
		"numpy.random._generator.Generator", "numpy.random.mtrand.RandomState",
		/* "<sha256 _hashlib.HASH object @ 0x7f...>" */
		"_hashlib.HASH", "_hashlib.HASHXOF", "_hashlib.HMAC",
	};
	size_t		len = strlen(name);
	size_t		i;

	for (i = 0; i < SB_LENGTH(suffixes); i++)
	{
		size_t		slen = strlen(suffixes[i]);

		if (len >= slen && strcmp(name + len - slen, suffixes[i]) == 0)
			return true;
	}
	return false;
}

static int
sb_mask_type(PyTypeObject *type, void *unused)
{
	PyObject   *descr;
	int			i;

	if (sb_prints_address(type->tp_name) && sb_repr_add(type->tp_repr) < 0)
		return -1;
	i = sb_repr_index(type->tp_repr);
	if (i >= 0)
		type->tp_repr = sb_repr_wrapper[i];
	/* the slot wrapper (object.__repr__ ...), which classes made later take */
	if (type->tp_dict != NULL)
	{
		descr = PyDict_GetItemString(type->tp_dict, "__repr__");
		if (descr != NULL && Py_IS_TYPE(descr, &PyWrapperDescr_Type))
		{
			PyWrapperDescrObject *wrapper = (PyWrapperDescrObject *) descr;

			i = sb_repr_index((reprfunc) wrapper->d_wrapped);
			if (i >= 0)
				wrapper->d_wrapped = (void *) sb_repr_wrapper[i];
		}
	}
	return 0;
}

/*
 * sb_io.guard_addresses(): mask the address in every repr that prints
 * one (in the worker, and again in its preloaded process after imports;
 * types readied later copy the masked pointers).
 */
PyObject *
sb_io_guard_addresses(PyObject *self, PyObject *unused)
{
	PyTypeObject *const printers[] = {
		&PyBaseObject_Type, &PyFunction_Type, &PyCFunction_Type, &PyCMethod_Type,
		&PyMethod_Type, &PyInstanceMethod_Type, &PyMemoryView_Type, &PyGen_Type,
		&PyCoro_Type, &PyAsyncGen_Type, &PyCell_Type, &_PyWeakref_RefType,
		&_PyWeakref_ProxyType, &_PyWeakref_CallableProxyType, &PyCapsule_Type,
		&PyCode_Type, &_PyMethodWrapper_Type, &PyFrame_Type,
	};
	size_t		i;
	int			rc;

	(void) self;
	(void) unused;
	if (sb_mask_init() < 0)
		return NULL;
	for (i = 0; i < SB_LENGTH(printers); i++)
	{
		PyTypeObject *type = printers[i];

		if (sb_repr_add(type->tp_repr) < 0)
			return NULL;
	}
	rc = sb_for_each_type(&PyBaseObject_Type, sb_mask_type, NULL);
	if (rc < 0)
		return NULL;
	Py_RETURN_NONE;
}

/* sb_io.mask_address(n): n (0 <= n < 2**64) through the permutation */
PyObject *
sb_io_mask_address(PyObject *self, PyObject *arg)
{
	unsigned long long value;

	(void) self;
	if (!PyLong_Check(arg))
	{
		PyErr_SetString(PyExc_TypeError, "mask_address() takes an int");
		return NULL;
	}
	value = PyLong_AsUnsignedLongLongMask(arg);
	if (value == (unsigned long long) -1 && PyErr_Occurred())
		return NULL;
	if (sb_mask_init() < 0)
		return NULL;
	return PyLong_FromUnsignedLongLong(sb_mask(value));
}
