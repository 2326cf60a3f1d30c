import { DEMO_SQL_DATABASE } from './demo-sql-dump.js';

/** The kind of a `demo/sql` task (its group): what the gold query mainly exercises. */
export type DemoSqlKind = 'select' | 'filter' | 'aggregate' | 'join' | 'order' | 'subquery' | 'set';

/**
 * One task of `demo/sql`: a stable id, the question, a gold query that gives the same rows in the
 * same order every time on every engine (SQLite, MariaDB/MySQL, PostgreSQL), its kind (the group),
 * and the database with its tables and columns (as Spider's `db` and `db_tables`).
 */
export interface DemoSqlTask {
  readonly id: string;
  readonly query: string;
  readonly gold: string;
  readonly group: DemoSqlKind;
  readonly db: string;
  readonly db_tables: Readonly<Record<string, readonly string[]>>;
}

/** The tables of `harbor_logistics` and their columns, in dump order (the schema hint of a task). */
export const DEMO_SQL_TABLES: Readonly<Record<string, readonly string[]>> = {
  ports: ['port_id', 'name', 'country', 'berths', 'max_draft_m', 'opened_year'],
  ships: ['ship_id', 'name', 'ship_type', 'flag', 'built_year', 'gross_tonnage', 'home_port_id'],
  crew: ['crew_id', 'ship_id', 'full_name', 'job_title', 'hired_on', 'daily_wage', 'email'],
  voyages: [
    'voyage_id',
    'ship_id',
    'origin_port_id',
    'dest_port_id',
    'departed_at',
    'arrived_at',
    'distance_nm',
    'status',
  ],
  cargo: ['cargo_id', 'voyage_id', 'description', 'category', 'weight_t', 'declared_value', 'hazardous'],
};

/*
 * Rules every gold follows, so that it is deterministic on all three engines:
 * - ORDER BY ends with a unique key wherever the order or a LIMIT matters;
 * - only portable SQL: no engine-specific functions (COALESCE, not IFNULL), single-quoted strings,
 *   date ranges as literal comparisons (no YEAR() or date functions), no `/` between integers;
 * - GROUP BY lists every selected column that is not aggregated (PostgreSQL's and MySQL's
 *   ONLY_FULL_GROUP_BY rule); text whose capitals vary is grouped and compared through LOWER().
 */
const TASKS: readonly Omit<DemoSqlTask, 'db' | 'db_tables'>[] = [
  // select: one table, no condition to speak of
  {
    id: 'count-ships',
    group: 'select',
    query: 'How many ships does the company have?',
    gold: 'SELECT COUNT(*) FROM ships',
  },
  {
    id: 'list-ports',
    group: 'select',
    query: 'List the name and country of every port, sorted by port name.',
    gold: 'SELECT name, country FROM ports ORDER BY name, port_id',
  },
  {
    id: 'count-port-countries',
    group: 'select',
    query: 'In how many different countries does the company have a port?',
    gold: 'SELECT COUNT(DISTINCT country) FROM ports',
  },
  {
    id: 'ship-home-port-or-zero',
    group: 'select',
    query:
      'For every ship, in order of ship id, show its name and the id of its home port, or 0 when it has no home port.',
    gold: 'SELECT name, COALESCE(home_port_id, 0) FROM ships ORDER BY ship_id',
  },
  // filter: WHERE clauses
  {
    id: 'ships-built-before-2010',
    group: 'filter',
    query: 'Which ships were built before 2010? Give name and build year, oldest first.',
    gold: 'SELECT name, built_year FROM ships WHERE built_year < 2010 ORDER BY built_year, ship_id',
  },
  {
    id: 'count-container-ships',
    group: 'filter',
    query:
      'How many container ships are there? The ship type is not always written with the same capital letters.',
    gold: "SELECT COUNT(*) FROM ships WHERE LOWER(ship_type) = 'container'",
  },
  {
    id: 'country-of-st-johns',
    group: 'filter',
    query: "In which country is the port of St. John's?",
    gold: "SELECT country FROM ports WHERE name = 'St. John''s'",
  },
  {
    id: 'unassigned-crew',
    group: 'filter',
    query: 'Which crew members are not assigned to any ship? Give their full names in alphabetical order.',
    gold: 'SELECT full_name FROM crew WHERE ship_id IS NULL ORDER BY full_name, crew_id',
  },
  {
    id: 'crew-without-email',
    group: 'filter',
    query: 'List the id and full name of the crew members with no email address on file, by crew id.',
    gold: 'SELECT crew_id, full_name FROM crew WHERE email IS NULL ORDER BY crew_id',
  },
  {
    id: 'voyages-departed-march-2024',
    group: 'filter',
    query: 'Which voyages departed in March 2024? Give their ids in order of departure.',
    gold: "SELECT voyage_id FROM voyages WHERE departed_at >= '2024-03-01' AND departed_at < '2024-04-01' ORDER BY departed_at, voyage_id",
  },
  {
    id: 'crew-hired-2015-to-2018',
    group: 'filter',
    query:
      'Which crew members were hired from 2015 to 2018, both years included? Give full name and hiring date, earliest hire first.',
    gold: "SELECT full_name, hired_on FROM crew WHERE hired_on BETWEEN '2015-01-01' AND '2018-12-31' ORDER BY hired_on, crew_id",
  },
  {
    id: 'ships-named-harbour',
    group: 'filter',
    query: 'Which ships have the word Harbour in their name? Sort them by name.',
    gold: "SELECT name FROM ships WHERE name LIKE '%Harbour%' ORDER BY name, ship_id",
  },
  {
    id: 'heavy-hazardous-cargo',
    group: 'filter',
    query:
      'Which hazardous cargo items weigh more than 20000 tonnes? Give description and weight, heaviest first.',
    gold: 'SELECT description, weight_t FROM cargo WHERE hazardous = 1 AND weight_t > 20000 ORDER BY weight_t DESC, cargo_id',
  },
  {
    id: 'voyages-at-sea',
    group: 'filter',
    query:
      'Which voyages are still at sea, that is, have no arrival time and are not cancelled? Give voyage id and ship id by voyage id.',
    gold: "SELECT voyage_id, ship_id FROM voyages WHERE arrived_at IS NULL AND status <> 'cancelled' ORDER BY voyage_id",
  },
  // aggregate: counts, sums, averages, groups
  {
    id: 'total-cargo-weight',
    group: 'aggregate',
    query: 'What is the total weight in tonnes of all cargo ever loaded?',
    gold: 'SELECT SUM(weight_t) FROM cargo',
  },
  {
    id: 'count-undeclared-cargo',
    group: 'aggregate',
    query: 'How many cargo items have no declared value?',
    gold: 'SELECT COUNT(*) FROM cargo WHERE declared_value IS NULL',
  },
  {
    id: 'arrived-distance-range',
    group: 'aggregate',
    query: 'What are the shortest and the longest distance, in nautical miles, of the voyages that arrived?',
    gold: "SELECT MIN(distance_nm), MAX(distance_nm) FROM voyages WHERE status = 'arrived'",
  },
  {
    id: 'voyages-per-status',
    group: 'aggregate',
    query: 'How many voyages are there of each status? Sort by status.',
    gold: 'SELECT status, COUNT(*) FROM voyages GROUP BY status ORDER BY status',
  },
  {
    id: 'cargo-by-category',
    group: 'aggregate',
    query:
      'For each cargo category, written in lower case (the same category is sometimes capitalised differently), give the number of items and their total weight, sorted by category.',
    gold: 'SELECT LOWER(category), COUNT(*), SUM(weight_t) FROM cargo GROUP BY LOWER(category) ORDER BY LOWER(category)',
  },
  {
    id: 'average-wage-by-job',
    group: 'aggregate',
    query:
      'What is the average daily wage of each job title, in lower case (titles are not always capitalised alike), rounded to 2 decimals? Sort by job title.',
    gold: 'SELECT LOWER(job_title), ROUND(AVG(daily_wage), 2) FROM crew GROUP BY LOWER(job_title) ORDER BY LOWER(job_title)',
  },
  {
    id: 'countries-with-several-ports',
    group: 'aggregate',
    query: 'Which countries have more than one port, and how many ports does each have?',
    gold: 'SELECT country, COUNT(*) FROM ports GROUP BY country HAVING COUNT(*) > 1 ORDER BY country',
  },
  {
    id: 'ships-by-size-class',
    group: 'aggregate',
    query:
      "Call a ship 'large' when its gross tonnage is at least 80000 and 'small' otherwise. How many ships are in each class? Sort by class.",
    gold: "SELECT CASE WHEN gross_tonnage >= 80000 THEN 'large' ELSE 'small' END, COUNT(*) FROM ships GROUP BY CASE WHEN gross_tonnage >= 80000 THEN 'large' ELSE 'small' END ORDER BY 1",
  },
  // join: two or more tables
  {
    id: 'ship-home-ports',
    group: 'join',
    query: 'List every ship with the name of its home port (empty when it has none), in order of ship id.',
    gold: 'SELECT s.name, p.name FROM ships s LEFT JOIN ports p ON p.port_id = s.home_port_id ORDER BY s.ship_id',
  },
  {
    id: 'ship-captains',
    group: 'join',
    query: 'Who is the captain of each ship? Give ship name and captain name, sorted by ship name.',
    gold: "SELECT s.name, c.full_name FROM ships s JOIN crew c ON c.ship_id = s.ship_id WHERE c.job_title = 'Captain' ORDER BY s.name, s.ship_id",
  },
  {
    id: 'routes-arrived-april-2024',
    group: 'join',
    query:
      'For the voyages that arrived in April 2024, give the voyage id and the names of the origin and destination ports, by voyage id.',
    gold: "SELECT v.voyage_id, o.name, d.name FROM voyages v JOIN ports o ON o.port_id = v.origin_port_id JOIN ports d ON d.port_id = v.dest_port_id WHERE v.arrived_at >= '2024-04-01' AND v.arrived_at < '2024-05-01' ORDER BY v.voyage_id",
  },
  {
    id: 'northern-star-cargo',
    group: 'join',
    query:
      'What cargo has the ship Northern Star carried? List the descriptions by voyage id, then by cargo id.',
    gold: "SELECT c.description FROM cargo c JOIN voyages v ON v.voyage_id = c.voyage_id JOIN ships s ON s.ship_id = v.ship_id WHERE s.name = 'Northern Star' ORDER BY v.voyage_id, c.cargo_id",
  },
  {
    id: 'crew-size-per-ship',
    group: 'join',
    query:
      'How many crew members does each ship have (0 for a ship without crew)? Give ship name and count, by ship id.',
    gold: 'SELECT s.name, COUNT(c.crew_id) FROM ships s LEFT JOIN crew c ON c.ship_id = s.ship_id GROUP BY s.ship_id, s.name ORDER BY s.ship_id',
  },
  {
    id: 'top-ships-by-distance',
    group: 'join',
    query:
      'Which five ships have sailed the greatest total distance over their arrived voyages? Give ship name and total distance, greatest first.',
    gold: "SELECT s.name, SUM(v.distance_nm) AS total_nm FROM ships s JOIN voyages v ON v.ship_id = s.ship_id WHERE v.status = 'arrived' GROUP BY s.ship_id, s.name ORDER BY total_nm DESC, s.ship_id LIMIT 5",
  },
  {
    id: 'declared-value-by-flag',
    group: 'join',
    query:
      'What is the total declared value of the cargo carried under each flag (the flag of the ship)? Sort by flag.',
    gold: 'SELECT s.flag, SUM(c.declared_value) FROM cargo c JOIN voyages v ON v.voyage_id = c.voyage_id JOIN ships s ON s.ship_id = v.ship_id GROUP BY s.flag ORDER BY s.flag',
  },
  // order: sorting and limits
  {
    id: 'three-heaviest-cargo',
    group: 'order',
    query: 'What are the three heaviest cargo items? Give description and weight, heaviest first.',
    gold: 'SELECT description, weight_t FROM cargo ORDER BY weight_t DESC, cargo_id LIMIT 3',
  },
  {
    id: 'port-with-most-berths',
    group: 'order',
    query: 'Which port has the most berths?',
    gold: 'SELECT name FROM ports ORDER BY berths DESC, port_id LIMIT 1',
  },
  {
    id: 'ports-ranked-4-to-6-by-berths',
    group: 'order',
    query:
      'Rank the ports by number of berths, most first. Which ports are ranked fourth to sixth? Give name and berths.',
    gold: 'SELECT name, berths FROM ports ORDER BY berths DESC, port_id LIMIT 3 OFFSET 3',
  },
  {
    id: 'newest-ships',
    group: 'order',
    query: 'Which are the five most recently built ships? Give name and build year, newest first.',
    gold: 'SELECT name, built_year FROM ships ORDER BY built_year DESC, ship_id LIMIT 5',
  },
  // subquery: nested queries
  {
    id: 'ships-above-average-tonnage',
    group: 'subquery',
    query:
      'Which ships have a gross tonnage above the average of the fleet? Give name and tonnage, largest first.',
    gold: 'SELECT name, gross_tonnage FROM ships WHERE gross_tonnage > (SELECT AVG(gross_tonnage) FROM ships) ORDER BY gross_tonnage DESC, ship_id',
  },
  {
    id: 'ports-never-visited',
    group: 'subquery',
    query: 'Which ports have never been the origin or the destination of a voyage?',
    gold: 'SELECT name FROM ports WHERE port_id NOT IN (SELECT origin_port_id FROM voyages) AND port_id NOT IN (SELECT dest_port_id FROM voyages) ORDER BY name, port_id',
  },
  {
    id: 'ships-never-sailed',
    group: 'subquery',
    query: 'Which ships have not made any voyage yet?',
    gold: 'SELECT s.name FROM ships s WHERE NOT EXISTS (SELECT 1 FROM voyages v WHERE v.ship_id = s.ship_id) ORDER BY s.name, s.ship_id',
  },
  {
    id: 'cargo-heavier-than-category-average',
    group: 'subquery',
    query:
      'Which cargo items are heavier than the average weight of their own category (ignoring capitals)? Give cargo id and description by cargo id.',
    gold: 'SELECT c.cargo_id, c.description FROM cargo c WHERE c.weight_t > (SELECT AVG(c2.weight_t) FROM cargo c2 WHERE LOWER(c2.category) = LOWER(c.category)) ORDER BY c.cargo_id',
  },
  {
    id: 'busiest-destination',
    group: 'subquery',
    query:
      'Which port is the destination of the most voyages, and of how many? If ports tie, take the one with the smallest id.',
    gold: 'SELECT p.name, t.arrivals FROM ports p JOIN (SELECT dest_port_id, COUNT(*) AS arrivals FROM voyages GROUP BY dest_port_id) t ON t.dest_port_id = p.port_id ORDER BY t.arrivals DESC, p.port_id LIMIT 1',
  },
  // set: UNION, INTERSECT, EXCEPT
  {
    id: 'amber-origins-or-blue-destinations',
    group: 'set',
    query:
      'Give the names of the ports that are the origin of a voyage of the Amber Tide or the destination of a voyage of the Blue Fjord, each once, sorted.',
    gold: "SELECT p.name FROM ports p JOIN voyages v ON v.origin_port_id = p.port_id JOIN ships s ON s.ship_id = v.ship_id WHERE s.name = 'Amber Tide' UNION SELECT p.name FROM ports p JOIN voyages v ON v.dest_port_id = p.port_id JOIN ships s ON s.ship_id = v.ship_id WHERE s.name = 'Blue Fjord' ORDER BY 1",
  },
  {
    id: 'flag-and-port-countries',
    group: 'set',
    query: 'Which countries both have a port and are the flag of at least one ship? Sort them.',
    gold: 'SELECT country FROM ports INTERSECT SELECT flag FROM ships ORDER BY 1',
  },
  {
    id: 'port-countries-without-ships',
    group: 'set',
    query: 'Which countries have a port but flag none of the ships? Sort them.',
    gold: 'SELECT country FROM ports EXCEPT SELECT flag FROM ships ORDER BY 1',
  },
];

/** The tasks of `demo/sql`, all on the `harbor_logistics` database of DEMO_SQL_DUMP. */
export const DEMO_SQL_TASKS: readonly DemoSqlTask[] = TASKS.map((task) => ({
  ...task,
  db: DEMO_SQL_DATABASE,
  db_tables: DEMO_SQL_TABLES,
}));
