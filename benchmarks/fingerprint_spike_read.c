/* The reading half of benchmarks/fingerprint_spike.py's native spike: the replicas' key read from the compiled engine's objects and hashed in C.
 *
 * hwlib's fingerprint hashes a state's key, each part's ``key`` (hwlib/engine/state_key.py). This
 * computes Python's hash of the replicas' part of it - ``tuple([r.key(ctx) for r in
 * cluster.replicas])`` with a plain ``KeyContext`` (the whole state: none of the model checker's
 * reductions) - straight from the mypyc-compiled objects' fields, with no Python object made:
 * each field read from its C struct (the layouts of mypyc's header for the same sources,
 * ``__native_hwlib_engine.h``), names and record values by the dicts the key reads them by, and
 * the integers mixed as CPython's tuple hash does (fingerprint_spike_hash.h, shared with
 * fingerprint_spike.c). An AlterIsr in flight (kip595 and later) is not covered: ValueError.
 *
 *     replicas_hash(cluster, values, codes, index, order) -> int
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include "CPy.h"
#include "__native_hwlib_engine.h"
#include "fingerprint_spike_hash.h"

static inline int64_t tagged(CPyTagged t) {
    if (!(t & 1)) return ((Py_ssize_t)t) >> 1;
    return PyLong_AsLongLong((PyObject *)(t & ~(CPyTagged)1));
}
static int64_t looked_up(PyObject *dict, PyObject *key) {   /* an int value; -999 if missing (a mismatch) */
    PyObject *v = PyDict_GetItem(dict, key);
    return v == NULL ? -999 : PyLong_AsLongLong(v);
}
static void ints_of(TupleHash *h, PyObject *list) {             /* a list of ints as a tuple */
    hash_open(h);
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) hash_int(h, PyLong_AsLongLong(PyList_GET_ITEM(list, i)));
    hash_close(h);
}
static void values_of(TupleHash *h, PyObject *list, PyObject *values) { /* record values by number */
    hash_open(h);
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) hash_int(h, looked_up(values, PyList_GET_ITEM(list, i)));
    hash_close(h);
}
typedef hwlib___engine___replica___ReplicaObject Replica;
typedef hwlib___engine___log___ReplicaLogObject Log;
typedef hwlib___engine___epoch_cache___LeaderEpochCacheObject Cache;
typedef hwlib___engine___replica___RemoteReplicaObject Remote;
typedef hwlib___engine___replica___InFlightObject InFlight;
typedef hwlib___engine___cluster___ClusterObject Cluster;
typedef hwlib___engine___logical_time___TimeObject Time;

static PyObject *replicas_hash(PyObject *self, PyObject *args) {
    PyObject *cluster_obj, *values, *codes, *index, *order;
    if (!PyArg_ParseTuple(args, "OOOOO", &cluster_obj, &values, &codes, &index, &order)) return NULL;
    Cluster *cluster = (Cluster *)cluster_obj;
    int64_t now = tagged(((Time *)cluster->_time)->_now);
    PyObject *replicas = cluster->_replicas;
    TupleHash h; hash_start(&h); hash_open(&h);
    Py_ssize_t nr = PyList_GET_SIZE(replicas);
    for (Py_ssize_t k = 0; k < nr; k++) {
        Replica *r = (Replica *)PyList_GET_ITEM(replicas, k);
        hash_open(&h);
        hash_int(&h, r->_online);
        hash_int(&h, looked_up(codes, r->_role));
        hash_int(&h, r->_leader_id == Py_None ? -1 : looked_up(index, r->_leader_id));
        hash_int(&h, tagged(r->_leader_epoch));
        hash_int(&h, looked_up(codes, r->_fetch_state));
        hash_int(&h, tagged(r->_hw));
        hash_int(&h, tagged(r->_hw_checkpoint));
        Log *log = (Log *)r->_log;                     /* (records, flushed, start, cache) */
        hash_open(&h);
        hash_open(&h);
        values_of(&h, log->_values, values);
        ints_of(&h, log->_epochs);
        ints_of(&h, log->_seqs);
        hash_close(&h);
        hash_int(&h, tagged(log->_flushed));
        hash_int(&h, tagged(log->_start));
        Cache *cache = (Cache *)log->_cache;
        hash_open(&h);
        Py_ssize_t ne = PyList_GET_SIZE(cache->__epochs);
        for (Py_ssize_t i = 0; i < ne; i++) {
            hash_open(&h);
            hash_int(&h, PyLong_AsLongLong(PyList_GET_ITEM(cache->__epochs, i)));
            hash_int(&h, PyLong_AsLongLong(PyList_GET_ITEM(cache->__starts, i)));
            hash_close(&h);
        }
        hash_close(&h);
        hash_close(&h);
        hash_open(&h);                                    /* the ISR by index */
        Py_ssize_t ni = PyTuple_GET_SIZE(r->_isr);
        for (Py_ssize_t i = 0; i < ni; i++) hash_int(&h, looked_up(index, PyTuple_GET_ITEM(r->_isr, i)));
        hash_close(&h);
        hash_int(&h, r->_isolated);
        hash_int(&h, r->_awaiting_leader);
        hash_int(&h, r->_unclean_shutdown);
        hash_int(&h, tagged(r->_leader_epoch_start));
        hash_int(&h, r->_crashed_at_ms == Py_None ? -1 : now - PyLong_AsLongLong(r->_crashed_at_ms));
        hash_open(&h);                                    /* the remote views, in the replicas' order */
        if (PyDict_GET_SIZE(r->_remotes)) {
            Py_ssize_t no = PyTuple_GET_SIZE(order);
            for (Py_ssize_t i = 0; i < no; i++) {
                Remote *v = (Remote *)PyDict_GetItem(r->_remotes, PyTuple_GET_ITEM(order, i));
                if (v == NULL) continue;
                hash_open(&h);
                hash_int(&h, i);
                hash_int(&h, tagged(v->_leo));
                hash_int(&h, now - tagged(v->_last_caught_up_ms));
                hash_int(&h, tagged(v->_last_fetch_leader_leo));
                hash_int(&h, now - tagged(v->_last_fetch_ms));
                hash_close(&h);
            }
        }
        hash_close(&h);
        hash_open(&h);                                    /* the request in flight */
        if (r->_in_flight != Py_None) {
            InFlight *q = (InFlight *)r->_in_flight;
            hash_int(&h, looked_up(codes, q->_kind));
            hash_int(&h, tagged(((Replica *)q->_leader)->_index));
            hash_int(&h, tagged(q->_fetch_offset));
            hash_int(&h, tagged(q->_asked_epoch));
            hash_int(&h, q->_parked);
            hash_int(&h, tagged(q->_deadline) - now);
            values_of(&h, q->_values, values);
            ints_of(&h, q->_epochs);
            ints_of(&h, q->_seqs);
            hash_int(&h, tagged(q->_hw));
            hash_int(&h, looked_up(codes, q->_error));
            hash_int(&h, tagged(q->_leader_leo));
            hash_int(&h, tagged(q->_leader_start));
            hash_open(&h);
            PyObject *a = q->_answer;
            if (PyTuple_Check(a)) { hash_int(&h, PyLong_AsLongLong(PyTuple_GET_ITEM(a, 0))); hash_int(&h, PyLong_AsLongLong(PyTuple_GET_ITEM(a, 1))); }
            else if (a != Py_None) hash_int(&h, PyLong_AsLongLong(a));
            hash_close(&h);
        }
        hash_close(&h);
        hash_open(&h);                                    /* the purgatory by follower */
        Py_ssize_t np = PyList_GET_SIZE(r->_purgatory);
        for (Py_ssize_t i = 0; i < np; i++)
            hash_int(&h, tagged(((Replica *)((InFlight *)PyList_GET_ITEM(r->_purgatory, i))->_follower)->_index));
        hash_close(&h);
        if (r->_alter_isr != Py_None) { PyErr_SetString(PyExc_ValueError, "an AlterIsr in flight: not in this spike"); return NULL; }
        hash_open(&h); hash_close(&h);
        hash_int(&h, tagged(r->_partition_epoch));
        hash_close(&h);
    }
    if (PyErr_Occurred()) return NULL;                  /* a field that was not an int */
    return PyLong_FromLongLong((int64_t)hash_end(&h));
}

static PyMethodDef methods[] = {{"replicas_hash", replicas_hash, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fingerprint_spike_read", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fingerprint_spike_read(void) { return PyModule_Create(&module); }
