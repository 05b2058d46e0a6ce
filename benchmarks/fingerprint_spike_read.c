/* The reading half of benchmarks/fingerprint_spike.py's native spike: the replicas' key read from the compiled engine's objects and hashed in C.
 *
 * hwlib's fingerprint hashes a state's key, each part's ``key`` (hwlib/engine/state_key.py). This
 * computes Python's hash of the replicas' part of it - ``tuple([r.key(ctx) for r in
 * cluster.replicas])`` with a plain ``KeyContext`` (the whole state: none of the model checker's
 * reductions) - straight from the mypyc-compiled objects' fields, with no Python object made:
 * each field read from its C struct (the layouts of mypyc's header for the same sources,
 * ``__native_hwlib_engine.h``), names and record values by the dicts the key reads them by, and
 * the integers mixed as CPython's tuple hash does (Objects/tupleobject.c, tuplehash; long_hash
 * for integers). An AlterIsr in flight (kip595 and later) is not covered: ValueError.
 *
 *     replicas_hash(cluster, values, codes, index, order) -> int
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include "CPy.h"
#include "__native_hwlib_engine.h"

#define P1 11400714785074694791ULL
#define P2 14029467366897019727ULL
#define P5 2870177450012600261ULL
#define ROT(x) (((x) << 31) | ((x) >> 33))
#define MOD ((1ULL << 61) - 1)

typedef struct { uint64_t acc[24]; uint64_t len[24]; int d; } H;
static inline void h_open(H *h) { h->d++; h->acc[h->d] = P5; h->len[h->d] = 0; }
static inline void h_lane(H *h, uint64_t lane) {
    uint64_t a = h->acc[h->d] + lane * P2; a = ROT(a); h->acc[h->d] = a * P1; h->len[h->d]++; }
static inline uint64_t int_hash(int64_t v) {
    if (v > -(int64_t)MOD && v < (int64_t)MOD) return (uint64_t)(v == -1 ? -2 : v);
    uint64_t m = (v < 0 ? (uint64_t)(-(v + 1)) + 1 : (uint64_t)v) % MOD;
    int64_t r = v < 0 ? -(int64_t)m : (int64_t)m;
    return (uint64_t)(r == -1 ? -2 : r);
}
static inline void h_int(H *h, int64_t v) { h_lane(h, int_hash(v)); }
static inline uint64_t h_end(H *h) {
    uint64_t a = h->acc[h->d] + (h->len[h->d] ^ (P5 ^ 3527539UL));
    if (a == (uint64_t)-1) a = 1546275796;
    h->d--; return a; }
static inline void h_close(H *h) { uint64_t a = h_end(h); h_lane(h, a); }

static inline int64_t tagged(CPyTagged t) {
    if (!(t & 1)) return ((Py_ssize_t)t) >> 1;
    return PyLong_AsLongLong((PyObject *)(t & ~(CPyTagged)1));
}
static int64_t looked_up(PyObject *dict, PyObject *key) {   /* an int value; -999 if missing (a mismatch) */
    PyObject *v = PyDict_GetItem(dict, key);
    return v == NULL ? -999 : PyLong_AsLongLong(v);
}
static void ints_of(H *h, PyObject *list) {                    /* a list of ints as a tuple */
    h_open(h);
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) h_int(h, PyLong_AsLongLong(PyList_GET_ITEM(list, i)));
    h_close(h);
}
static void values_of(H *h, PyObject *list, PyObject *values) {  /* record values by number */
    h_open(h);
    Py_ssize_t n = PyList_GET_SIZE(list);
    for (Py_ssize_t i = 0; i < n; i++) h_int(h, looked_up(values, PyList_GET_ITEM(list, i)));
    h_close(h);
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
    H h; h.d = -1; h_open(&h);
    Py_ssize_t nr = PyList_GET_SIZE(replicas);
    for (Py_ssize_t k = 0; k < nr; k++) {
        Replica *r = (Replica *)PyList_GET_ITEM(replicas, k);
        h_open(&h);
        h_int(&h, r->_online);
        h_int(&h, looked_up(codes, r->_role));
        h_int(&h, r->_leader_id == Py_None ? -1 : looked_up(index, r->_leader_id));
        h_int(&h, tagged(r->_leader_epoch));
        h_int(&h, looked_up(codes, r->_fetch_state));
        h_int(&h, tagged(r->_hw));
        h_int(&h, tagged(r->_hw_checkpoint));
        Log *log = (Log *)r->_log;                     /* (records, flushed, start, cache) */
        h_open(&h);
        h_open(&h);
        values_of(&h, log->_values, values);
        ints_of(&h, log->_epochs);
        ints_of(&h, log->_seqs);
        h_close(&h);
        h_int(&h, tagged(log->_flushed));
        h_int(&h, tagged(log->_start));
        Cache *cache = (Cache *)log->_cache;
        h_open(&h);
        Py_ssize_t ne = PyList_GET_SIZE(cache->__epochs);
        for (Py_ssize_t i = 0; i < ne; i++) {
            h_open(&h);
            h_int(&h, PyLong_AsLongLong(PyList_GET_ITEM(cache->__epochs, i)));
            h_int(&h, PyLong_AsLongLong(PyList_GET_ITEM(cache->__starts, i)));
            h_close(&h);
        }
        h_close(&h);
        h_close(&h);
        h_open(&h);                                    /* the ISR by index */
        Py_ssize_t ni = PyTuple_GET_SIZE(r->_isr);
        for (Py_ssize_t i = 0; i < ni; i++) h_int(&h, looked_up(index, PyTuple_GET_ITEM(r->_isr, i)));
        h_close(&h);
        h_int(&h, r->_isolated);
        h_int(&h, r->_awaiting_leader);
        h_int(&h, r->_unclean_shutdown);
        h_int(&h, tagged(r->_leader_epoch_start));
        h_int(&h, r->_crashed_at_ms == Py_None ? -1 : now - PyLong_AsLongLong(r->_crashed_at_ms));
        h_open(&h);                                    /* the remote views, in the replicas' order */
        if (PyDict_GET_SIZE(r->_remotes)) {
            Py_ssize_t no = PyTuple_GET_SIZE(order);
            for (Py_ssize_t i = 0; i < no; i++) {
                Remote *v = (Remote *)PyDict_GetItem(r->_remotes, PyTuple_GET_ITEM(order, i));
                if (v == NULL) continue;
                h_open(&h);
                h_int(&h, i);
                h_int(&h, tagged(v->_leo));
                h_int(&h, now - tagged(v->_last_caught_up_ms));
                h_int(&h, tagged(v->_last_fetch_leader_leo));
                h_int(&h, now - tagged(v->_last_fetch_ms));
                h_close(&h);
            }
        }
        h_close(&h);
        h_open(&h);                                    /* the request in flight */
        if (r->_in_flight != Py_None) {
            InFlight *q = (InFlight *)r->_in_flight;
            h_int(&h, looked_up(codes, q->_kind));
            h_int(&h, tagged(((Replica *)q->_leader)->_index));
            h_int(&h, tagged(q->_fetch_offset));
            h_int(&h, tagged(q->_asked_epoch));
            h_int(&h, q->_parked);
            h_int(&h, tagged(q->_deadline) - now);
            values_of(&h, q->_values, values);
            ints_of(&h, q->_epochs);
            ints_of(&h, q->_seqs);
            h_int(&h, tagged(q->_hw));
            h_int(&h, looked_up(codes, q->_error));
            h_int(&h, tagged(q->_leader_leo));
            h_int(&h, tagged(q->_leader_start));
            h_open(&h);
            PyObject *a = q->_answer;
            if (PyTuple_Check(a)) { h_int(&h, PyLong_AsLongLong(PyTuple_GET_ITEM(a, 0))); h_int(&h, PyLong_AsLongLong(PyTuple_GET_ITEM(a, 1))); }
            else if (a != Py_None) h_int(&h, PyLong_AsLongLong(a));
            h_close(&h);
        }
        h_close(&h);
        h_open(&h);                                    /* the purgatory by follower */
        Py_ssize_t np = PyList_GET_SIZE(r->_purgatory);
        for (Py_ssize_t i = 0; i < np; i++)
            h_int(&h, tagged(((Replica *)((InFlight *)PyList_GET_ITEM(r->_purgatory, i))->_follower)->_index));
        h_close(&h);
        if (r->_alter_isr != Py_None) { PyErr_SetString(PyExc_ValueError, "an AlterIsr in flight: not in this spike"); return NULL; }
        h_open(&h); h_close(&h);
        h_int(&h, tagged(r->_partition_epoch));
        h_close(&h);
    }
    if (PyErr_Occurred()) return NULL;                  /* a field that was not an int */
    return PyLong_FromLongLong((int64_t)h_end(&h));
}

static PyMethodDef methods[] = {{"replicas_hash", replicas_hash, METH_VARARGS, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "fingerprint_spike_read", NULL, -1, methods};
PyMODINIT_FUNC PyInit_fingerprint_spike_read(void) { return PyModule_Create(&module); }
