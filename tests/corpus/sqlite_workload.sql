.headers on
.mode list
CREATE TABLE dept(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, budget REAL);
CREATE TABLE emp(id INTEGER PRIMARY KEY, name TEXT, dept INTEGER REFERENCES dept(id), salary INTEGER, hired TEXT, note TEXT);
CREATE INDEX emp_dept ON emp(dept, salary);
CREATE TABLE audit(id INTEGER PRIMARY KEY AUTOINCREMENT, emp INTEGER, old INTEGER, new INTEGER);
CREATE TRIGGER emp_raise AFTER UPDATE OF salary ON emp WHEN new.salary > old.salary * 1.2
BEGIN INSERT INTO audit(emp, old, new) VALUES (new.id, old.salary, new.salary); END;
BEGIN;
WITH RECURSIVE d(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM d WHERE i < 12)
INSERT INTO dept SELECT i, 'dept-' || char(64 + i), i * 12500.5 FROM d;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 4000)
INSERT INTO emp SELECT i, printf('emp%05d', i), 1 + (i * 7) % 12, 30000 + (i * 7919) % 50000,
  date('2000-01-01', '+' || ((i * 37) % 8000) || ' days'),
  CASE WHEN i % 3 = 0 THEN upper(hex(i * 31)) WHEN i % 3 = 1 THEN replace('a-b-c-' || i, '-', '_') END
FROM n;
COMMIT;
SELECT count(*), sum(salary), min(hired), max(hired), total(length(note)) FROM emp;
SELECT d.name, count(*) AS n, avg(e.salary) AS avg_salary, max(e.salary) - min(e.salary) AS spread
FROM emp e JOIN dept d ON d.id = e.dept GROUP BY d.id HAVING n > 300 ORDER BY avg_salary DESC;
UPDATE emp SET salary = salary * 13 / 10 WHERE id % 97 = 0;
SELECT count(*), sum(new - old) FROM audit;
DELETE FROM emp WHERE note LIKE 'A%' OR note GLOB '*_1?';
SELECT count(*) FROM emp;
CREATE VIEW ranked AS SELECT id, dept, salary, rank() OVER (PARTITION BY dept ORDER BY salary DESC, id) AS r,
  sum(salary) OVER (PARTITION BY dept ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS run FROM emp;
SELECT dept, id, salary, run FROM ranked WHERE r <= 2 ORDER BY dept, r;
SELECT strftime('%Y', hired) AS y, count(*), group_concat(DISTINCT dept) FROM emp
WHERE hired BETWEEN '2005-01-01' AND '2008-12-31' GROUP BY y ORDER BY y;
SELECT substr(name, 4, 2) AS k, count(*) FROM emp GROUP BY k ORDER BY count(*) DESC, k LIMIT 5;
SELECT e.name, (SELECT count(*) FROM emp f WHERE f.dept = e.dept AND f.salary > e.salary) AS above
FROM emp e WHERE e.id IN (5, 50, 500, 3999) ORDER BY e.id;
SELECT json_group_array(json_object('id', id, 'name', name)) FROM (SELECT id, name FROM emp ORDER BY salary DESC, id LIMIT 4);
SELECT json_extract('{"a":[1,2,{"b":"x"}]}', '$.a[2].b'), round(sqrt(2), 6), 7 / 2, 7 % 3, 7.0 / 2, typeof(1e3), cast('12abc' AS INTEGER);
SELECT instr('hello world', 'o'), ltrim('  x  ') || '|', quote('it''s'), unicode('é'), char(955), lower('ÀBC'), printf('%08.3f|%-5s|%x', 3.14159, 'ab', 255);
WITH RECURSIVE fib(a, b, k) AS (SELECT 0, 1, 0 UNION ALL SELECT b, a + b, k + 1 FROM fib WHERE k < 90) SELECT max(a) FROM fib;
.mode csv
SELECT id, name, note FROM emp ORDER BY id LIMIT 3;
.mode box
SELECT d.id, d.name, count(e.id) AS n FROM dept d LEFT JOIN emp e ON e.dept = d.id AND e.salary > 78000 GROUP BY d.id ORDER BY d.id LIMIT 4;
PRAGMA integrity_check;
EXPLAIN QUERY PLAN SELECT * FROM emp WHERE dept = 3 AND salary > 50000;
SELECT * FROM nosuchtable;
