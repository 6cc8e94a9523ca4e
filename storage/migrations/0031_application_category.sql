-- An application's category is APPLICATION or FIRMWARE, as AirVantage and its clients say
-- (docs/api.md#applications-and-templates); SOFTWARE, which the service stored before, is still accepted on input and
-- stored as APPLICATION.
ALTER TABLE applications DROP CONSTRAINT applications_category_check;
UPDATE applications SET category = 'APPLICATION' WHERE category = 'SOFTWARE';
ALTER TABLE applications ADD CONSTRAINT applications_category_check CHECK (category IN ('APPLICATION', 'FIRMWARE'));
