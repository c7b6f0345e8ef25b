// What the store layer's files share: the results store over an open database. Internal header
// of the store layer.
#pragma once

#include <memory>

#include "store/database.hpp"
#include "store/store.hpp"

namespace harness::store {

// The results store over `db`, whose schema is current (schema.cpp has opened it).
std::unique_ptr<results_store> make_sql_store(std::unique_ptr<database> db);

// The SQL of the migration from `version` to version + 1 (its filling of old rows, if any, is not
// part of it); nullptr beyond the last. The tests make a store of an older version with it.
const char* migration_sql(int version);

// The schema version the store in `db` holds: 0 for an empty database. Throws store_unusable when
// the database holds something that is not a harness store.
int version_of(database& db);

}  // namespace harness::store
