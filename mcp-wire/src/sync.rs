//! Locking shared state.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Locks `m`, taking the guard even if a thread panicked while holding it.
///
/// Every critical section in the server and client leaves its state
/// consistent at each step (inserts, removes, counter updates), so a panic
/// elsewhere under the lock must not take the whole connection down with it.
pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reads `l`, as [`lock`] does for a mutex.
pub fn read<T>(l: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(PoisonError::into_inner)
}

/// Writes `l`, as [`lock`] does for a mutex.
pub fn write<T>(l: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(PoisonError::into_inner)
}
