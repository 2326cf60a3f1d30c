import type { Demonstration } from './demonstration.js';

/** Five SQL episodes on made-up databases, written for this project. */
export const SQL_DEMONSTRATIONS: readonly Demonstration[] = [
  {
    task: 'How many books came out after 2010?',
    steps: [
      {
        thought: 'I do not know the tables of this database yet, so I will list them.',
        action: { code: 'SHOW TABLES' },
        observation: 'Tables_in_library\nauthor\nbook\nloan\n(3 rows)',
      },
      {
        thought: 'The book table should hold the year; I will check its columns.',
        action: { code: 'DESCRIBE book' },
        observation:
          'Field | Type | Null | Key | Default | Extra\nbook_id | int | NO | PRI | NULL | \ntitle | varchar(200) | YES |  | NULL | \nauthor_id | int | YES | MUL | NULL | \nyear_out | int | YES |  | NULL | \n(4 rows)',
      },
      {
        thought: 'The year is in year_out. I count the books with a year above 2010.',
        action: { code: 'SELECT COUNT(*) FROM book WHERE year_out > 2010' },
        observation: 'COUNT(*)\n57\n(1 row)',
      },
      { thought: 'The count answers the question.', action: { submit: undefined } },
    ],
  },
  {
    task: 'Give the names of the clubs that have more than 20 members.',
    steps: [
      {
        thought: 'First the tables.',
        action: { code: 'SHOW TABLES' },
        observation: 'Tables_in_sports\nclub\nmember\n(2 rows)',
      },
      {
        thought: 'I need to know how a member points to a club.',
        action: { code: 'DESCRIBE member' },
        observation:
          'Field | Type | Null | Key | Default | Extra\nmember_id | int | NO | PRI | NULL | \nname | text | YES |  | NULL | \nclub_id | int | YES | MUL | NULL | \n(3 rows)',
      },
      {
        thought: 'I join the clubs to their members, group by club and keep the groups above 20.',
        action: {
          code: 'SELECT c.name FROM club AS c JOIN member AS m ON m.club_id = c.club_id GROUP BY c.club_id, c.name HAVING COUNT(*) > 20',
        },
        observation: 'name\nRiverside Rowers\nNorth Hill Runners\n(2 rows)',
      },
      { thought: 'Those are the clubs asked for.', action: { submit: undefined } },
    ],
  },
  {
    task: 'What is the average salary in each department?',
    steps: [
      {
        thought: 'A table of employees is likely; I will try it directly.',
        action: { code: 'SELECT department, AVG(salary) FROM employees GROUP BY department' },
        observation: "Error: Table 'company.employees' doesn't exist",
      },
      {
        thought: 'That table name is wrong. I will list the real tables.',
        action: { code: 'SHOW TABLES' },
        observation: 'Tables_in_company\ndepartment\nstaff\n(2 rows)',
      },
      {
        thought: 'Employees are in staff; I will look at its columns.',
        action: { code: 'DESCRIBE staff' },
        observation:
          'Field | Type | Null | Key | Default | Extra\nstaff_id | int | NO | PRI | NULL | \ndept_id | int | YES | MUL | NULL | \nsalary | decimal(10,2) | YES |  | NULL | \n(3 rows)',
      },
      {
        thought: 'The department is dept_id. I average the salary per department.',
        action: { code: 'SELECT dept_id, AVG(salary) FROM staff GROUP BY dept_id' },
        observation: 'dept_id | AVG(salary)\n1 | 4150.00\n2 | 3875.50\n3 | 5010.25\n(3 rows)',
      },
      { thought: 'Every department has its average.', action: { submit: undefined } },
    ],
  },
  {
    task: 'Which city has the most airports?',
    steps: [
      {
        thought: 'I will see which tables there are.',
        action: { code: 'SHOW TABLES' },
        observation: 'Tables_in_travel\nairport\nflight\n(2 rows)',
      },
      {
        thought: 'I check the columns of airport to find the city.',
        action: { code: 'DESCRIBE airport' },
        observation:
          'Field | Type | Null | Key | Default | Extra\ncode | char(3) | NO | PRI | NULL | \ncity | text | YES |  | NULL | \ncountry | text | YES |  | NULL | \n(3 rows)',
      },
      {
        thought: 'I count the airports per city and keep the largest count.',
        action: { code: 'SELECT city FROM airport GROUP BY city ORDER BY COUNT(*) DESC LIMIT 1' },
        observation: 'city\nLondon\n(1 row)',
      },
      { thought: 'London is the answer.', action: { submit: undefined } },
    ],
  },
  {
    task: "List the titles of the films rated 'PG' that are longer than two hours.",
    steps: [
      {
        thought: 'I will look at the tables first.',
        action: { code: 'SHOW TABLES' },
        observation: 'Tables_in_cinema\nfilm\nscreening\n(2 rows)',
      },
      {
        thought: 'I need the rating and the length of a film.',
        action: { code: 'DESCRIBE film' },
        observation:
          'Field | Type | Null | Key | Default | Extra\nfilm_id | int | NO | PRI | NULL | \ntitle | text | YES |  | NULL | \nrating | varchar(5) | YES |  | NULL | \nminutes | int | YES |  | NULL | \n(4 rows)',
      },
      {
        thought: 'Two hours are 120 minutes.',
        action: { code: "SELECT title FROM film WHERE rating = 'PG' AND minutes > 120" },
        observation: 'title\nThe Long Voyage\nHarbour Lights\n(2 rows)',
      },
      { thought: 'These are the films asked for.', action: { submit: undefined } },
    ],
  },
];
